/** `is_*` and `type_name`. A failed `is_*` check is false, never undefined. */
import { typeName, type Value } from '../values.ts';
import type { BuiltinTable } from './types.ts';

const is = (t: string) => ({ arity: 1, fn: ([v]: Value[]) => typeName(v!) === t });

export const typeChecks: BuiltinTable = {
  is_null: is('null'),
  is_boolean: is('boolean'),
  is_number: is('number'),
  is_string: is('string'),
  is_array: is('array'),
  is_object: is('object'),
  is_set: is('set'),
  type_name: { arity: 1, fn: ([v]) => typeName(v!) },
};
