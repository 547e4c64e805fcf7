import * as assert from 'node:assert/strict';
import { Hono } from 'hono';
import { readSessionId } from '../../../services/auth/cookies.ts';
import { test } from '../../support/suite.ts';

const app = new Hono().get('/', (c) => c.json({ sid: readSessionId(c) ?? null }));
const sidOf = async (cookie: string | undefined) => {
  const response = await app.request('/', { headers: cookie === undefined ? {} : { cookie } });
  return ((await response.json()) as { sid: string | null }).sid;
};

test('readSessionId: the sid cookie among others, spaces and quotes allowed; anything not a session id is no session', async () => {
  const id = 'Qm9yZW_x-1AbcdefGhijklmnopqrstuvwxyz0123456';
  const cases: Array<[string | undefined, string | null]> = [
    [`sid=${id}`, id],
    [`theme=dark; sid=${id}; lang=it`, id],
    [`theme=dark;sid=${id}`, id],
    [` sid = ${id} `, id],
    [`sid="${id}"`, id],
    // Names that end or start with "sid" are other cookies.
    [`mysid=nope; sidx=nope; sid=${id}`, id],
    [`mysid=${id}`, null],
    // The first sid holding a session id; a malformed one is skipped, as a cookie parser does.
    [`sid=a%20b; sid=${id}`, id],
    [`sid=first; sid=${id}`, 'first'],
    ['sid=', null],
    ['sid="unbalanced', null],
    ['sid=a b', null],
    ['', null],
    [undefined, null],
  ];
  for (const [cookie, expected] of cases) assert.equal(await sidOf(cookie), expected, String(cookie));
});

test.run();
