import * as assert from 'uvu/assert';
import { equalityKey } from '../../../engine/filter/mongo/values.ts';
import type { JsonValue } from '../../../operators/record/json.ts';
import { test } from '../../support/suite.ts';

test('equalityKey is the JSON text of a value, numbers of every form included', () => {
  const values: JsonValue[] = [
    0,
    -0,
    7,
    -12,
    2.5,
    1e21,
    5e-7,
    2 ** 53,
    'a"b',
    null,
    true,
    [1, '1'],
    { a: 1 },
  ];
  for (const value of values) assert.is(equalityKey(value), JSON.stringify(value), JSON.stringify(value));
});

test('equalityKey agrees for the values MongoDB finds equal, and only for them', () => {
  assert.is(equalityKey(5), equalityKey(5.0));
  assert.is(equalityKey(0), equalityKey(-0));
  assert.is.not(equalityKey(5), equalityKey('5'));
  assert.is.not(equalityKey(null), equalityKey('null'));
});

test.run();
