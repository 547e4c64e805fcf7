/** `yaml.marshal`, `yaml.unmarshal` and `yaml.is_valid`, on the `yaml` package (YAML 1.2). */
import { parse, parseDocument, Scalar, stringify } from 'yaml';
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

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * OPA's `yaml.marshal` writes the value's exact JSON and converts it with sigs.k8s.io/yaml, which
 * reads each number with go-yaml: an integer within int64 or uint64 stays exact (the `yaml`
 * package prints a BigInt's digits); beyond, a float64, printed as Go's `%g`
 * (`1.1805916207174113e+21`, as `toExponential`); beyond float64, a plain string of the digits.
 * Integers within 2^53 are left as they are, so ordinary values print as before.
 */
function yamlNumbers(j: unknown): unknown {
  if (typeof j === 'bigint' || (typeof j === 'number' && Number.isInteger(j) && !Number.isSafeInteger(j))) {
    const n = BigInt(j);
    if (n >= INT64_MIN && n <= UINT64_MAX) return n;
    const f = Number(n);
    if (!Number.isFinite(f)) return n;
    const node = new Scalar(f);
    node.format = 'EXP';
    return node;
  }
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map(yamlNumbers);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(j)) out[k] = yamlNumbers(v);
  return out;
}

export const yaml: BuiltinTable = {
  'yaml.marshal': { arity: 1, fn: ([v]) => stringify(yamlNumbers(toJSON(v!, true))) },
  'yaml.unmarshal': { arity: 1, fn: (args, name) => unmarshal(name, str(name, args, 0)) },
  'yaml.is_valid': {
    arity: 1,
    fn: ([s]) => typeof s === 'string' && parseDocument(s).errors.length === 0,
  },
};
