import * as assert from 'node:assert/strict';
import {
  createRenderer,
  hasMessageFor,
  type TemplateContext,
} from '../../../services/notification/templates.ts';
import { test } from '../../support/suite.ts';

const render = createRenderer('it-IT');

/** The email body of a one-field template, rendered with the context. */
const text = (template: string, context: TemplateContext) =>
  render({ emailMessage: template }, 'email', context)?.content;

/** The reference's example ("Messages interpolation"): its user, its data, its message. */
const MARIO = { name: 'Mario', surname: 'Rossi' };
const APPOINTMENT = { appointmentDate: '01/01/2021', serviceAmount: 1234567.89 };

test('the reference’s interpolation example: `user` is the recipient’s record, `data` the request’s data', () => {
  assert.equal(
    text(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference's dollar sign before a Handlebars expression
      'Hello, {{user.name}}! You have a new appointment on {{data.appointmentDate}} and you are going to pay ${{toLocale data.serviceAmount "en-US"}}',
      { data: APPOINTMENT, user: MARIO },
    ),
    'Hello, Mario! You have a new appointment on 01/01/2021 and you are going to pay $1,234,567.89',
  );
});

test('{{ }} escapes HTML, {{{ }}} does not', () => {
  const context = { data: { notes: '<b>bring "the" X-ray</b>' }, user: {} };
  assert.equal(text('{{data.notes}}', context), '&lt;b&gt;bring &quot;the&quot; X-ray&lt;/b&gt;');
  assert.equal(text('{{{data.notes}}}', context), '<b>bring "the" X-ray</b>');
});

test('dateFormat: the reference’s example shifts across midnight in the zone; defaults ISO 8601 and UTC', () => {
  const table: [string, unknown, string][] = [
    [
      "{{ dateFormat data.startDate format='DD/MM/YYYY' tz='Europe/Rome' }}",
      '2023-10-14T22:30:00Z',
      '15/10/2023',
    ],
    ["{{ dateFormat data.startDate format='DD/MM/YYYY' }}", '2023-10-14T22:30:00Z', '14/10/2023'],
    ["{{ dateFormat data.startDate format='HH:mm' tz='America/New_York' }}", '2023-10-15T03:30:00Z', '23:30'],
    ['{{ dateFormat data.startDate }}', '2023-10-15T09:30:00.123Z', '2023-10-15T09:30:00Z'],
    ["{{ dateFormat data.startDate tz='Europe/Rome' }}", '2023-10-15T09:30:00Z', '2023-10-15T11:30:00+02:00'],
    ["{{ dateFormat data.startDate format='YYYY' }}", 1700000000000, '2023'],
    ['[{{ dateFormat data.missing }}]', undefined, '[]'],
  ];
  for (const [template, startDate, expected] of table)
    assert.equal(text(template, { data: { startDate }, user: {} }), expected, template);
});

test('dateNow: the current date-time as an ISO string, also as a sub-expression', () => {
  const before = Date.now();
  const now = text('{{ dateNow }}', { data: {}, user: {} }) ?? '';
  assert.match(now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Date.parse(now) >= before && Date.parse(now) <= Date.now());
  assert.equal(
    text("{{ dateFormat (dateNow) format='YYYY' }}", { data: {}, user: {} }),
    String(new Date().getUTCFullYear()),
  );
});

test('toLocale: numbers as numbers, dates as dates; locale by name, by position or DEFAULT_LOCALE; undefined is empty', () => {
  const data = { amount: 1234567.89, when: '2026-01-02T09:30:00Z', label: 'n/a', zero: 0 };
  const table: [string, string][] = [
    ['{{ toLocale data.amount }}', '1.234.567,89'],
    ["{{ toLocale data.amount locale='it-IT' }}", '1.234.567,89'],
    ["{{ toLocale data.amount locale='en-US' }}", '1,234,567.89'],
    ['{{ toLocale data.amount "en-IN" }}', '12,34,567.89'],
    ['{{ toLocale data.zero }}', '0'],
    ['{{ toLocale data.when }}', '02/01/2026, 09:30:00'],
    ["{{ toLocale data.when locale='en-US' timeZone='America/New_York' }}", '1/2/2026, 4:30:00 AM'],
    ['{{ toLocale data.label }}', 'n/a'],
    ['[{{ toLocale data.missing }}]', '[]'],
  ];
  for (const [template, expected] of table)
    assert.equal(text(template, { data, user: {} }), expected, template);
});

test('the handlebars-helpers the reference names: the `eq` example, and others of the set', () => {
  const template = '{{#if (eq data.type "patients")}}{{data.firstName}} {{data.lastName}}{{/if}}';
  const data = { firstName: 'Jill', lastName: 'Marlowe', type: 'patients', items: ['a', 'b'] };
  assert.equal(text(template, { data, user: {} }), 'Jill Marlowe');
  assert.equal(text(template, { data: { ...data, type: 'doctors' }, user: {} }), '');
  assert.equal(
    text('{{uppercase data.lastName}} {{join data.items "+"}} {{add 1 2}}', { data, user: {} }),
    'MARLOWE a+b 3',
  );
});

test('every channel’s fields are interpolated with data and user; pushData keeps quotes and newlines of the data', () => {
  const template = {
    emailTitle: 'Visit, {{user.name}}',
    emailHtmlMessage: '<p>{{data.code}}</p>',
    emailAttachments: [{ file: 'visit.pdf' }],
    smsMessage: 'SMS {{data.code}}',
    voiceMessage: 'Voice {{user.surname}}',
    pushTitle: 'Push {{user.name}}',
    pushSubtitle: 'Sub {{data.code}}',
    pushMessage: 'Msg {{data.code}}',
    pushData:
      '{"android":{"notification":{"title":"{{data.title}}","body":"{{user.name}}"}},"count":{{data.count}} }',
    whatsappTemplateName: 'visit_reminder',
    whatsappTemplateParameters: '{{user.name}},{{user.surname}},{{data.code}}',
  };
  const context = { data: { code: 'C-1', title: 'Say "hi"\nnow', count: 2 }, user: MARIO };
  assert.deepEqual(render(template, 'email', context), {
    title: 'Visit, Mario',
    content: '<p>C-1</p>',
    html: '<p>C-1</p>',
    attachments: [{ file: 'visit.pdf' }],
  });
  assert.deepEqual(render(template, 'sms', context), { content: 'SMS C-1' });
  assert.deepEqual(render(template, 'voice', context), { content: 'Voice Rossi' });
  assert.deepEqual(render(template, 'push', context), {
    title: 'Push Mario',
    subtitle: 'Sub C-1',
    content: 'Msg C-1',
    pushData: { android: { notification: { title: 'Say "hi"\nnow', body: 'Mario' } }, count: 2 },
  });
  assert.deepEqual(render(template, 'whatsapp', context), {
    content: 'Mario,Rossi,C-1',
    whatsappTemplateName: 'visit_reminder',
  });
});

test('a template without a channel’s fields has no message there, except WhatsApp (its delivery fails without a template name)', () => {
  const context = { data: {}, user: {} };
  for (const channel of ['email', 'sms', 'voice', 'push'] as const)
    assert.equal(render({ name: 'empty' }, channel, context), undefined, channel);
  assert.deepEqual(render({ name: 'empty' }, 'whatsapp', context), {
    content: '',
    whatsappTemplateName: undefined,
  });
  assert.equal(
    hasMessageFor({ whatsappTemplateParameters: 'a,b' }, 'whatsapp'),
    false,
    'a setting needs the name',
  );
  assert.equal(hasMessageFor({ whatsappTemplateName: 'visit' }, 'whatsapp'), true);
});

test('a template with an unknown helper or a bad time zone throws (its delivery fails, named)', () => {
  assert.throws(() => text('{{nope data.x}}', { data: {}, user: {} }), /Missing helper: "nope"/);
  assert.throws(
    () => text("{{dateFormat data.d tz='Mars/Base'}}", { data: { d: '2026-01-01' }, user: {} }),
    /Invalid time zone/,
  );
});

test.run();
