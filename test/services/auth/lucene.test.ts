import * as assert from 'node:assert/strict';
import { luceneValue, userSearchQuery } from '../../../services/auth/lucene.ts';
import { HttpError } from '../../../services/kit/index.ts';
import { test } from '../../support/suite.ts';

const connections = ['db', 'google'];
const build = (query: Record<string, string[]>, aclRows?: string) =>
  userSearchQuery({ query, aclRows, connections });

test('values are quoted phrases with " and \\ escaped; with * every reserved character is escaped and * kept', () => {
  assert.equal(luceneValue('ada@example.test'), '"ada@example.test"');
  assert.equal(luceneValue('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
  assert.equal(luceneValue('ada*'), 'ada*');
  assert.equal(luceneValue('a b:(c)*'), 'a\\ b\\:\\(c\\)*');
  assert.equal(luceneValue('*+-&|!{}[]^"~?/\\*'), '*\\+\\-\\&\\|\\!\\{\\}\\[\\]\\^\\"\\~\\?\\/\\\\*');
});

test('no filter: every connection of the management client, OR-ed', () => {
  assert.equal(build({}), '(identities.connection:"db" OR identities.connection:"google")');
  assert.equal(
    userSearchQuery({ query: {}, aclRows: undefined, connections: ['db'] }),
    'identities.connection:"db"',
  );
  assert.equal(userSearchQuery({ query: {}, aclRows: undefined, connections: [] }), '');
});

test('fields AND-ed in parentheses, the connection clause last; paging parameters are not fields', () => {
  assert.equal(
    build({ email: ['ada@example.test'], 'app_metadata.groups': ['admin'], _l: ['10'], _sk: ['20'] }),
    '(email:"ada@example.test" AND app_metadata.groups:"admin") AND (identities.connection:"db" OR identities.connection:"google")',
  );
});

test('connections asked for are OR-ed; one not supported by the management client is 400', () => {
  assert.equal(
    build({ nickname: ['ada*'], connection: ['google'] }),
    '(nickname:ada*) AND identities.connection:"google"',
  );
  assert.equal(
    build({ connection: ['db', 'google', 'db'] }),
    '(identities.connection:"db" OR identities.connection:"google")',
  );
  assert.throws(
    () => build({ connection: ['github'] }),
    (e: Error) => e instanceof HttpError && e.status === 400,
  );
});

test('repeated values of one field are OR-ed; an unknown field is 400 (no injection through names)', () => {
  assert.equal(
    build({ 'app_metadata.groups': ['a', 'b c'], connection: ['db'] }),
    '(app_metadata.groups:("a" OR "b c")) AND identities.connection:"db"',
  );
  for (const field of ['password', 'email OR x', 'app_metadata.', 'app_metadata.a:b']) {
    assert.throws(() => build({ [field]: ['x'] }), /cannot search users by/);
  }
});

test('acl_rows: wrapped in parentheses and AND-ed with the filters, $in translated, $or/$and kept, before the connection', () => {
  const acl = JSON.stringify({
    $or: [{ 'app_metadata.groups': { $in: ['admin', 'ops'] } }, { email: 'boss@x.test' }],
  });
  assert.equal(
    build({ username: ['ada'], connection: ['db'] }, acl),
    '((username:"ada") AND ((app_metadata.groups:("admin" OR "ops") OR email:"boss@x.test"))) AND identities.connection:"db"',
  );
  assert.equal(
    build({ connection: ['db'] }, JSON.stringify({ 'app_metadata.tenant': 't1', email: { $eq: 'a@b' } })),
    '((app_metadata.tenant:"t1" AND email:"a@b")) AND identities.connection:"db"',
  );
});

test('acl_rows that is not JSON, uses an unknown operator or field, or holds objects is 400', () => {
  for (const acl of [
    'not json',
    '[]',
    '{}',
    '{"email":{"$regex":"a"}}',
    '{"secret":"x"}',
    '{"email":{"$in":[]}}',
    '{"email":{"$in":[{}]}}',
    '{"$or":[]}',
  ]) {
    assert.throws(
      () => build({}, acl),
      (e: Error) => e instanceof HttpError && e.status === 400,
      acl,
    );
  }
});

test.run();
