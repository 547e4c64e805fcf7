/**
 * `time.*` builtins. Instants are exact int64 nanoseconds (BigInt), as in OPA: a timestamp operand
 * that is not an integer within int64 is "timestamp too big", a result outside int64 "time outside
 * of valid range". Results beyond 2^53 are BigInts, like integer literals, so they stay exact.
 */
import { builtinError, typeError } from '../errors.ts';
import { typeName, type Value } from '../values.ts';
import {
  type CalendarFields,
  calendarFields,
  floorDiv,
  formatLayout,
  isKnownZone,
  layoutNamed,
  parseLayout,
  utcMs,
  weekdayName,
} from './time-layout.ts';
import { type BuiltinTable, int, mustBe, str } from './types.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const NS_PER_MS = 1_000_000n;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
const RFC3339_NANO = layoutNamed('RFC3339Nano');
const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const UINT63 = 2n ** 63n;

/** OPA's reading of a timestamp: the number as an exact int64. */
function timestamp(name: string, v: Value): bigint {
  mustBe(name, 0, v, 'number');
  if (typeof v === 'number' && !Number.isInteger(v)) throw builtinError(`${name}: timestamp too big`);
  const ns = BigInt(v as number | bigint);
  if (ns < INT64_MIN || ns > INT64_MAX) throw builtinError(`${name}: timestamp too big`);
  return ns;
}

/** A result in nanoseconds: within int64, else OPA's range error. */
function nanos(name: string, ns: bigint): number | bigint {
  if (ns < INT64_MIN || ns > INT64_MAX) throw builtinError(`${name}: time outside of valid range`);
  const n = Number(ns);
  return Number.isSafeInteger(n) ? n : ns;
}

function parseRFC3339(name: string, s: string): number | bigint {
  const m = RFC3339.exec(s);
  if (!m) throw builtinError(`${name}: parsing time ${JSON.stringify(s)} as RFC3339 failed`);
  const [, y, mo, d, h, mi, sec, frac = '', zone] = m;
  const seconds = BigInt(utcMs(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec)) / 1000);
  let offset = 0n;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone![0] === '-' ? -1n : 1n;
    offset = sign * (BigInt(Number(zone!.slice(1, 3))) * 3600n + BigInt(Number(zone!.slice(4, 6))) * 60n);
  }
  return nanos(name, (seconds - offset) * 1_000_000_000n + BigInt(frac.padEnd(9, '0') || '0'));
}

/**
 * Go's `time.ParseDuration`: signed `[0-9]*(.[0-9]*)?unit` pieces, exact int64 nanoseconds (a
 * fraction is scaled as a double and truncated, as Go does), Go's error texts.
 */
function parseDuration(name: string, orig: string): number | bigint {
  const invalid = () => builtinError(`${name}: time: invalid duration ${JSON.stringify(orig)}`);
  let s = orig;
  const negative = s.startsWith('-');
  if (negative || s.startsWith('+')) s = s.slice(1);
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    const piece = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [whole = '', fraction] = [piece[1], piece[2]];
    if (whole === '' && !fraction) throw invalid();
    s = s.slice(piece[0].length);
    const unitText = /^[^.\d]*/.exec(s)![0];
    if (unitText === '')
      throw builtinError(`${name}: time: missing unit in duration ${JSON.stringify(orig)}`);
    s = s.slice(unitText.length);
    const unit = DURATION_UNITS[unitText];
    if (unit === undefined)
      throw builtinError(
        `${name}: time: unknown unit ${JSON.stringify(unitText)} in duration ${JSON.stringify(orig)}`,
      );
    let v = BigInt(whole || '0') * unit;
    if (fraction) v += BigInt(Math.trunc(Number(`0.${fraction}`) * Number(unit)));
    total += v;
    if (total > UINT63) throw invalid();
  }
  if (!negative && total === UINT63) throw invalid();
  return nanos(name, negative ? -total : total);
}

/** An instant operand: `ns`, `[ns, tz]` or `[ns, tz, layout]`, read as OPA's `tzTime` does. */
function instant(name: string, arg: Value): { ns: bigint; zone: string; layout?: string } {
  const shape = 'either number (ns) or [number (ns), string (tz)]';
  if (!Array.isArray(arg)) {
    if (typeName(arg) !== 'number')
      throw typeError(`${name}: operand 1 must be ${shape} but got ${typeName(arg)}`);
    return { ns: timestamp(name, arg), zone: 'UTC' };
  }
  if (arg.length === 0) throw typeError(`${name}: operand 1 must be ${shape} but got array`);
  mustBe(name, 0, arg[0]!, 'number');
  let zone = 'UTC';
  if (arg.length > 1) {
    const tz = str(name, [arg[1]!], 0);
    // As Go: "" and "UTC" are UTC, "Local" the machine's zone, anything else an IANA name.
    if (tz === 'Local') zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    else if (tz !== '' && tz !== 'UTC') {
      if (!isKnownZone(tz)) throw builtinError(`${name}: unknown time zone ${tz}`);
      zone = tz;
    }
  }
  const layout = arg.length > 2 ? str(name, [arg[2]!], 0) : undefined;
  return { ns: timestamp(name, arg[0]!), zone, layout };
}

function fields(name: string, arg: Value): CalendarFields & { layout?: string } {
  const { ns, zone, layout } = instant(name, arg);
  return { ...calendarFields(ns, zone), layout };
}

/** Go's `time.Time` difference in calendar units, borrowing like OPA's `time.diff`. */
function diff(a: CalendarFields, b: CalendarFields): number[] {
  let [y, mo, d, h, mi, s] = [b.y - a.y, b.mo - a.mo, b.d - a.d, b.h - a.h, b.mi - a.mi, b.s - a.s];
  if (s < 0) [s, mi] = [s + 60, mi - 1];
  if (mi < 0) [mi, h] = [mi + 60, h - 1];
  if (h < 0) [h, d] = [h + 24, d - 1];
  if (d < 0) {
    const daysInMonth = new Date(utcMs(a.y, a.mo + 1, 0)).getUTCDate();
    [d, mo] = [d + daysInMonth, mo - 1];
  }
  if (mo < 0) [mo, y] = [mo + 12, y - 1];
  return [y, mo, d, h, mi, s];
}

export const time: BuiltinTable = {
  'time.now_ns': { arity: 0, fn: (_args, _name, ctx) => ctx.nowNs },
  'time.parse_rfc3339_ns': { arity: 1, fn: (args, name) => parseRFC3339(name, str(name, args, 0)) },
  'time.parse_duration_ns': { arity: 1, fn: (args, name) => parseDuration(name, str(name, args, 0)) },
  'time.clock': {
    arity: 1,
    fn: ([a], name) => {
      const f = fields(name, a!);
      return [f.h, f.mi, f.s];
    },
  },
  'time.date': {
    arity: 1,
    fn: ([a], name) => {
      const f = fields(name, a!);
      return [f.y, f.mo, f.d];
    },
  },
  'time.weekday': { arity: 1, fn: ([a], name) => weekdayName(fields(name, a!).wd) },
  'time.format': {
    arity: 1,
    fn: ([a], name) => {
      const f = fields(name, a!);
      return formatLayout(f, f.layout ? layoutNamed(f.layout) : RFC3339_NANO);
    },
  },
  'time.parse_ns': {
    arity: 2,
    fn: (args, name) => {
      const layout = layoutNamed(str(name, args, 0));
      const value = str(name, args, 1);
      const ns = parseLayout(layout, value);
      if (ns === undefined)
        throw builtinError(`${name}: parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}`);
      return nanos(name, ns);
    },
  },
  'time.diff': {
    arity: 2,
    fn: ([a, b], name) => {
      // As OPA: the second instant is read in the first one's zone, the earlier one first.
      const first = instant(name, a!);
      const second = instant(name, b!);
      const [early, late] = first.ns <= second.ns ? [first.ns, second.ns] : [second.ns, first.ns];
      return diff(calendarFields(early, first.zone), calendarFields(late, first.zone));
    },
  },
  'time.add_date': {
    arity: 4,
    fn: (args, name) => {
      const ns = timestamp(name, args[0]!);
      const ms = floorDiv(ns, NS_PER_MS);
      // Go's AddDate normalizes overflowing months and days as Date's setters do.
      const d = new Date(Number(ms));
      d.setUTCFullYear(
        d.getUTCFullYear() + int(name, args, 1),
        d.getUTCMonth() + int(name, args, 2),
        d.getUTCDate() + int(name, args, 3),
      );
      if (Number.isNaN(d.getTime())) throw builtinError(`${name}: time outside of valid range`);
      return nanos(name, BigInt(d.getTime()) * NS_PER_MS + (ns - ms * NS_PER_MS));
    },
  },
};
