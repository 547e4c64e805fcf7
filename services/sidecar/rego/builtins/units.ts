/** `units.parse` and `units.parse_bytes`: SI and binary suffixes, as OPA reads them. */
import { builtinError } from '../errors.ts';
import { type BuiltinTable, str } from './types.ts';

const SI: Record<string, number> = {
  '': 1,
  k: 1e3,
  m: 1e-3,
  M: 1e6,
  g: 1e9,
  G: 1e9,
  t: 1e12,
  T: 1e12,
  p: 1e15,
  P: 1e15,
  e: 1e18,
  E: 1e18,
};
const BIN: Record<string, number> = {
  ki: 2 ** 10,
  mi: 2 ** 20,
  gi: 2 ** 30,
  ti: 2 ** 40,
  pi: 2 ** 50,
  ei: 2 ** 60,
};

function split(name: string, raw: string, noun: string): [number, string] {
  const s = raw.replace(/^"|"$/g, '');
  if (s.includes(' ')) throw builtinError(`${name}: spaces not allowed in resource strings`);
  const m = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)(.*)$/.exec(s);
  if (!m) {
    if (!/^[-+]?[\d.]/.test(s)) throw builtinError(`${name}: no ${noun}amount provided`);
    throw builtinError(`${name}: could not parse ${noun}amount to a number`);
  }
  const n = Number(m[1]);
  if (!Number.isFinite(n)) throw builtinError(`${name}: exponent too large`);
  return [n, m[2]!];
}

export const units: BuiltinTable = {
  'units.parse': {
    arity: 1,
    fn: (args, name) => {
      const [n, suffix] = split(name, str(name, args, 0), '');
      const bin = BIN[suffix.toLowerCase()];
      if (bin !== undefined && suffix.length === 2) return n * bin;
      const si = SI[suffix];
      if (si === undefined) throw builtinError(`${name}: could not parse amount to a number`);
      return n * si;
    },
  },
  'units.parse_bytes': {
    arity: 1,
    fn: (args, name) => {
      const [n, rawSuffix] = split(name, str(name, args, 0), 'byte ');
      const suffix = rawSuffix.toLowerCase().replace(/b$/, '');
      const bin = BIN[suffix];
      const si = SI[suffix.toUpperCase()] ?? SI[suffix];
      const factor = bin ?? si;
      if (factor === undefined) throw builtinError(`${name}: could not parse byte amount to a number`);
      return Math.trunc(n * factor);
    },
  },
};
