/**
 * `units.parse` and `units.parse_bytes`, as OPA reads them (topdown/parse_units.go,
 * parse_bytes.go): the amount is an exact decimal, so `1.1Ki` is 1126.4 and `100m` 0.1, never a
 * float product; integers beyond 2^53 are BigInts.
 */
import { builtinError } from '../errors.ts';
import type { Value } from '../values.ts';
import { type BuiltinTable, str } from './types.ts';

/** mantissa × 10^exponent, exactly. */
interface Decimal {
  m: bigint;
  e: number;
}

const SI_UNITS: Record<string, Decimal> = {
  '': { m: 1n, e: 0 },
  m: { m: 1n, e: -3 },
  k: { m: 1n, e: 3 },
  K: { m: 1n, e: 3 },
  M: { m: 1n, e: 6 },
  g: { m: 1n, e: 9 },
  G: { m: 1n, e: 9 },
  t: { m: 1n, e: 12 },
  T: { m: 1n, e: 12 },
  p: { m: 1n, e: 15 },
  P: { m: 1n, e: 15 },
  e: { m: 1n, e: 18 },
  E: { m: 1n, e: 18 },
};
const BINARY_PREFIXES = ['k', 'm', 'g', 't', 'p', 'e'];
/** `ki` = 2^10 … `ei` = 2^60. */
const binary = (prefix: string): Decimal => ({
  m: 1n << BigInt(10 * (BINARY_PREFIXES.indexOf(prefix) + 1)),
  e: 0,
});

/** units.parse: the unit's first letter as written (m is milli, M mega), the rest in any case. */
function unitFactor(unit: string): Decimal | undefined {
  if (Object.hasOwn(SI_UNITS, unit)) return SI_UNITS[unit];
  const prefix = unit[0]!.toLowerCase();
  return unit.length === 2 && unit[1] === 'i' && BINARY_PREFIXES.includes(prefix)
    ? binary(prefix)
    : undefined;
}

/** units.parse_bytes: lower case, `kb`/`k` decimal, `kib`/`ki` binary. */
function byteFactor(unit: string): Decimal | undefined {
  if (unit === '') return { m: 1n, e: 0 };
  const [, prefix, i] = /^([kmgtpe])(i?)b?$/.exec(unit) ?? [];
  if (prefix === undefined) return undefined;
  return i ? binary(prefix) : { m: 1n, e: 3 * (BINARY_PREFIXES.indexOf(prefix) + 1) };
}

/**
 * OPA's split of `2.5e3Ki` into amount and unit: the amount runs over digits, `.`, signs and an
 * exponent (`e` followed by a digit or sign, at most 6 exponent digits); the unit is the rest.
 */
function splitAmount(name: string, s: string): [string, string] {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === 'e' || c === 'E') {
      const next = s[i + 1];
      if (next === undefined || !/[\d+-]/.test(next)) break;
      if (next === '+' || next === '-') i++;
      if (/^\d*/.exec(s.slice(i + 1))![0].length > 6) throw builtinError(`${name}: exponent too large`);
    } else if (!/[\d.+-]/.test(c)) break;
  }
  return [s.slice(0, i), s.slice(i)];
}

/** A decimal as Go's big.Rat reads it, or undefined. */
function decimal(text: string): Decimal | undefined {
  const parts = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!parts) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts;
  if (whole === '' && fraction === '') return undefined;
  return { m: BigInt(`${sign}${whole}${fraction}`), e: Number(exponent) - fraction.length };
}

function times(a: Decimal, b: Decimal): Decimal {
  return { m: a.m * b.m, e: a.e + b.e };
}

/** An integer as a Rego number: a BigInt beyond 2^53. */
function integer(n: bigint): number | bigint {
  return Number.isSafeInteger(Number(n)) ? Number(n) : n;
}

/** OPA's value of a rational: the integer when it is one, else rounded to 10 decimals. */
function rationalValue({ m, e }: Decimal): Value {
  if (e >= 0) return integer(m * 10n ** BigInt(e));
  const denominator = 10n ** BigInt(-e);
  if (m % denominator === 0n) return integer(m / denominator);
  if (e >= -10) return Number(`${m}e${e}`);
  // big.Rat FloatString(10): to nearest, halves away from zero.
  const scale = 10n ** BigInt(-e - 10);
  const magnitude = m < 0n ? -m : m;
  const rounded = (magnitude + scale / 2n) / scale;
  return Number(`${m < 0n ? '-' : ''}${rounded}e-10`);
}

/** The integer part, truncated toward zero, as big.Float's Int gives it. */
function truncated({ m, e }: Decimal): number | bigint {
  return integer(e >= 0 ? m * 10n ** BigInt(e) : m / 10n ** BigInt(-e));
}

function amountAndUnit(name: string, s: string, noun: string): [string, string] {
  if (s.includes(' ')) throw builtinError(`${name}: spaces not allowed in resource strings`);
  const [amount, unit] = splitAmount(name, s);
  if (amount === '') throw builtinError(`${name}: no ${noun}amount provided`);
  return [amount, unit];
}

export const units: BuiltinTable = {
  'units.parse': {
    arity: 1,
    fn: (args, name) => {
      const [amount, written] = amountAndUnit(name, str(name, args, 0).replaceAll('"', ''), '');
      const unit = written.length > 1 ? written[0] + written.slice(1).toLowerCase() : written;
      const factor = unitFactor(unit);
      if (!factor) throw builtinError(`${name}: unit ${unit} not recognized`);
      const n = decimal(amount);
      if (!n) throw builtinError(`${name}: could not parse amount to a number`);
      return rationalValue(times(n, factor));
    },
  },
  'units.parse_bytes': {
    arity: 1,
    fn: (args, name) => {
      const s = str(name, args, 0).toLowerCase().replaceAll('"', '');
      const [amount, unit] = amountAndUnit(name, s, 'byte ');
      const factor = byteFactor(unit);
      if (!factor) throw builtinError(`${name}: byte unit ${unit} not recognized`);
      const n = decimal(amount);
      if (!n) throw builtinError(`${name}: could not parse byte amount to a number`);
      return truncated(times(n, factor));
    },
  },
};
