import * as assert from 'uvu/assert';
import { parseChangeEvent } from '../../../engine/change-event/parse.ts';
import { test } from '../../support/suite.ts';

const msg = (key: string | null, value: string | null) => ({
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
});

test('c, r and u carry after; the key is canonicalised', () => {
  for (const op of ['c', 'r', 'u']) {
    const result = parseChangeEvent(msg('{"b":2,"a":1}', `{"op":"${op}","before":null,"after":{"x":1}}`));
    assert.equal(result, {
      kind: 'change',
      event: { op, ck: '{"a":1,"b":2}', key: { b: 2, a: 1 }, after: { x: 1 }, before: null },
    });
  }
});

test('d deletes, with or without before', () => {
  const result = parseChangeEvent(msg('{"id":1}', '{"op":"d","before":null,"after":null}'));
  assert.equal(result, {
    kind: 'change',
    event: { op: 'd', ck: '{"id":1}', key: { id: 1 }, after: null, before: null },
  });
  assert.is(parseChangeEvent(msg('{"id":1}', '{"op":"d"}')).kind, 'change');
});

test('an object before is kept; any other before is null', () => {
  const withBefore = parseChangeEvent(msg('{"id":1}', '{"op":"u","before":{"v":1},"after":{"v":2}}'));
  assert.equal(withBefore.kind === 'change' && withBefore.event.before, { v: 1 });
  for (const before of ['null', '[1]', '"x"', '3']) {
    const result = parseChangeEvent(msg('{"id":1}', `{"op":"u","before":${before},"after":{"v":2}}`));
    assert.is(result.kind === 'change' && result.event.before, null, before);
  }
});

test('null and empty values are tombstones', () => {
  assert.equal(parseChangeEvent(msg('{"id":1}', null)), { kind: 'tombstone' });
  assert.equal(parseChangeEvent(msg('{"id":1}', '')), { kind: 'tombstone' });
});

test('each malformed form is invalid with its reason', () => {
  const cases: [string | null, string, string][] = [
    ['not json', '{"op":"c","after":{}}', 'invalid-key-json'],
    [null, '{"op":"c","after":{}}', 'invalid-key-json'],
    ['[1]', '{"op":"c","after":{}}', 'key-not-object'],
    ['"id"', '{"op":"c","after":{}}', 'key-not-object'],
    ['null', '{"op":"c","after":{}}', 'key-not-object'],
    ['{"id":1}', '{op:c}', 'invalid-value-json'],
    ['{"id":1}', '[1,2]', 'value-not-object'],
    ['{"id":1}', '{"op":"x","after":{}}', 'unknown-op'],
    ['{"id":1}', '{"after":{}}', 'unknown-op'],
    ['{"id":1}', '{"op":"C","after":{}}', 'unknown-op'],
    ['{"id":1}', '{"op":"c","after":null}', 'after-not-object'],
    ['{"id":1}', '{"op":"u","after":[1]}', 'after-not-object'],
    ['{"id":1}', '{"op":"r"}', 'after-not-object'],
  ];
  for (const [key, value, reason] of cases) {
    const result = parseChangeEvent(msg(key, value));
    assert.is(result.kind, 'invalid', `${key} / ${value}`);
    if (result.kind === 'invalid') {
      assert.is(result.reason, reason, `${key} / ${value}`);
      assert.ok(result.detail.length > 0);
    }
  }
});

test('a huge record parses', () => {
  const after = { id: 1, blob: 'x'.repeat(2_000_000), list: Array.from({ length: 10_000 }, (_, i) => i) };
  const result = parseChangeEvent(msg('{"id":1}', JSON.stringify({ op: 'c', after })));
  assert.is(result.kind, 'change');
  if (result.kind === 'change') assert.is((result.event.after?.list as number[] | undefined)?.length, 10_000);
});

test.run();
