/** `semver.compare` and `semver.is_valid` (SemVer 2.0.0, no leading `v`). */
import { builtinError } from '../errors.ts';
import { type BuiltinTable, str } from './types.ts';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function parse(name: string, s: string, operand: number): RegExpExecArray {
  const m = SEMVER.exec(s);
  if (!m)
    throw builtinError(`${name}: operand ${operand}: string ${JSON.stringify(s)} is not a valid SemVer`);
  return m;
}

function comparePre(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Math.sign(Number(x) - Number(y));
    if (nx) return -1;
    if (ny) return 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(pa.length - pb.length);
}

export const semver: BuiltinTable = {
  'semver.is_valid': { arity: 1, fn: ([v]) => typeof v === 'string' && SEMVER.test(v) },
  'semver.compare': {
    arity: 2,
    fn: (args, name) => {
      const a = parse(name, str(name, args, 0), 1);
      const b = parse(name, str(name, args, 1), 2);
      for (let i = 1; i <= 3; i++) {
        const d = Number(a[i]) - Number(b[i]);
        if (d !== 0) return Math.sign(d);
      }
      return comparePre(a[4], b[4]);
    },
  },
};
