/**
 * Property: any user string given to the authentication service's user search ends up as a
 * literal. The built query parses (the fake Auth0's Lucene reader, which throws on an unescaped
 * reserved character) and matches exactly the user whose field holds that string; with `*`, the
 * wildcard is the only thing that is not literal (3.1.0): it matches the string with any text in
 * place of each `*`, and nothing else.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { userSearchQuery } from '../../services/auth/lucene.ts';
import { parseUserSearch } from '../support/fake-auth0-lucene.ts';
import { test } from '../support/suite.ts';
import { anyText, checkProperty } from './property.ts';

const search = (query: Record<string, string[]>, aclRows?: string) =>
  parseUserSearch(userSearchQuery({ query, aclRows, connections: ['db'] }));
const user = (email: string) => ({ email, 'identities.connection': 'db' });

/** Strings that lean on what Lucene reserves, besides any text. */
const hostile = fc.oneof(
  anyText(40),
  fc.string({
    unit: fc.constantFrom(...'+-&|!(){}[]^"~?:\\/ \t\nANDORNOT*.$a'.split(''), '&&', '||', ' AND ', ' OR '),
    maxLength: 20,
  }),
);
const literal = hostile.filter((s) => !s.includes('*'));

test('a string without * matches exactly the user holding it', () => {
  checkProperty('lucene: literal values', 5000, literal, fc.string({ maxLength: 3 }), (value, other) => {
    const matcher = search({ email: [value] });
    assert.ok(matcher(user(value)), 'does not match its own string');
    if (other !== '') assert.ok(!matcher(user(value + other)), 'matches a longer string');
  });
});

test('the same holds for values from the acl_rows header', () => {
  checkProperty('lucene: acl_rows values', 2000, literal, (value) => {
    const matcher = search({}, JSON.stringify({ email: { $in: [value] } }));
    assert.ok(matcher(user(value)));
    assert.ok(!matcher(user(`${value}x`)));
  });
});

test('with *, only the * is a wildcard', () => {
  // The fake reads `*` as a regular expression's `.*`, which stops at line terminators.
  const filler = fc.string({ maxLength: 5 }).filter((s) => !/[\n\r\u2028\u2029]/.test(s));
  checkProperty('lucene: wildcard values', 3000, hostile, filler, (value, fill) => {
    const pattern = `${value}*`;
    const matcher = search({ email: [pattern] });
    const literalParts = pattern.split('*');
    if (literalParts.some((part) => /[\n\r\u2028\u2029]/.test(part))) return;
    assert.ok(matcher(user(literalParts.join(fill))), 'the * does not match the filler');
    if (pattern.startsWith('*')) return;
    const stranger = value.startsWith('#') ? '%' : '#';
    assert.ok(!matcher(user(`${stranger}${literalParts.join(fill)}`)), 'matches text before the literal');
  });
});

test.run();
