import * as assert from 'node:assert/strict';
import { type NotificationSetting, resolveSettings } from '../../../services/notification/settings.ts';
import type { User } from '../../../services/notification/users.ts';
import { test } from '../../support/suite.ts';

const ada: User = {
  id: 'ada',
  groups: ['patients'],
  clusters: ['north'],
  roles: ['nurse'],
  addresses: {},
  timeZone: 'Europe/Rome',
  record: { _id: 'ada' },
};
const NOON_UTC = new Date('2026-06-01T12:00:00Z'); // 14:00 in Rome (summer time)
const T = 'tpl';

const s = (fields: Partial<NotificationSetting>): NotificationSetting => ({
  eventName: 'E',
  templateName: T,
  channels: ['email'],
  ...fields,
});

const CASES: [string, NotificationSetting[], string | undefined, [string, string[]][]][] = [
  ['a group setting sends', [s({ group: 'patients' })], undefined, [[T, ['email']]]],
  ['a setting of another group does not', [s({ group: 'doctors' })], undefined, []],
  [
    'user beats cluster',
    [s({ cluster: 'north', channels: ['sms'] }), s({ user: 'ada' })],
    undefined,
    [[T, ['email']]],
  ],
  [
    'cluster beats role',
    [s({ role: 'nurse', channels: ['sms'] }), s({ cluster: 'north' })],
    undefined,
    [[T, ['email']]],
  ],
  [
    'role beats group',
    [s({ group: 'patients', channels: ['sms'] }), s({ role: 'nurse' })],
    undefined,
    [[T, ['email']]],
  ],
  [
    'IGNORE for the user drops a group SEND',
    [s({ group: 'patients' }), s({ user: 'ada', rule: 'IGNORE' })],
    undefined,
    [],
  ],
  [
    'a group IGNORE does not drop a user SEND',
    [s({ group: 'patients', rule: 'IGNORE' }), s({ user: 'ada' })],
    undefined,
    [[T, ['email']]],
  ],
  [
    'settings of the same precedence merge channels',
    [s({ group: 'patients' }), s({ group: 'patients', channels: ['sms'] })],
    undefined,
    [[T, ['email', 'sms']]],
  ],
  [
    'templates are resolved apart',
    [s({ user: 'ada', rule: 'IGNORE' }), s({ group: 'patients', templateName: 'other' })],
    undefined,
    [['other', ['email']]],
  ],
  [
    'emitters: the emitter listed',
    [s({ group: 'patients', emitters: ['backoffice'] })],
    'backoffice',
    [[T, ['email']]],
  ],
  ['emitters: another emitter', [s({ group: 'patients', emitters: ['backoffice'] })], 'app', []],
  ['emitters: no emitter given', [s({ group: 'patients', emitters: ['backoffice'] })], undefined, []],
  [
    'every selector must match: the user in another cluster',
    [s({ user: 'ada', cluster: 'south' })],
    undefined,
    [],
  ],
  [
    'user in a cluster beats the user alone',
    [s({ user: 'ada', channels: ['sms'] }), s({ user: 'ada', cluster: 'north' })],
    undefined,
    [[T, ['email']]],
  ],
  [
    'group in a cluster beats group with a role',
    [s({ group: 'patients', role: 'nurse', channels: ['sms'] }), s({ group: 'patients', cluster: 'north' })],
    undefined,
    [[T, ['email']]],
  ],
  ['a setting with no selector targets nobody', [s({})], undefined, []],
  [
    'hours in the user time zone: inside',
    [s({ user: 'ada', hours: ['13:30-15:00'] })],
    undefined,
    [[T, ['email']]],
  ],
  [
    'hours in the user time zone: outside (12:00 is UTC, not Rome)',
    [s({ user: 'ada', hours: ['11:00-13:00'] })],
    undefined,
    [],
  ],
  ['hours across midnight', [s({ user: 'ada', hours: ['22:00-15:00'] })], undefined, [[T, ['email']]]],
];

for (const [name, settings, emitter, expected] of CASES) {
  test(name, () => {
    const got = resolveSettings(settings, ada, emitter, NOON_UTC).map((d) => [
      d.templateName,
      d.channels.sort(),
    ]);
    assert.deepEqual(got, expected);
  });
}

test.run();
