/** `yaml.marshal`, `yaml.unmarshal` and `yaml.is_valid`, on the `yaml` package (YAML 1.2). */
import { parse, parseDocument, stringify } from 'yaml';
import { builtinError } from '../errors.ts';
import { fromJSON, toJSON, type Value } from '../values.ts';
import { type BuiltinTable, str } from './types.ts';

function unmarshal(name: string, text: string): Value {
  try {
    return fromJSON(parse(text) ?? null);
  } catch (err) {
    throw builtinError(`${name}: ${(err as Error).message}`);
  }
}

export const yaml: BuiltinTable = {
  'yaml.marshal': { arity: 1, fn: ([v]) => stringify(toJSON(v!)) },
  'yaml.unmarshal': { arity: 1, fn: (args, name) => unmarshal(name, str(name, args, 0)) },
  'yaml.is_valid': {
    arity: 1,
    fn: ([s]) => typeof s === 'string' && parseDocument(s).errors.length === 0,
  },
};
