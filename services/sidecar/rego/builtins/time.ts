/**
 * `time.*` builtins. Nanoseconds are JS numbers (exact to about 2^53, i.e. microseconds for
 * present-day times); parsing checks OPA's int64 range exactly with BigInt.
 */
import { builtinError } from '../errors.ts';
import type { Value } from '../values.ts';
import {
  type CalendarFields,
  calendarFields,
  formatLayout,
  parseLayout,
  utcMs,
  weekdayName,
} from './time-layout.ts';
import { type BuiltinTable, int, mustBe, num, str } from './types.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
const DURATION_UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

function parseRFC3339(name: string, s: string): number {
  const m = RFC3339.exec(s);
  if (!m) throw builtinError(`${name}: parsing time ${JSON.stringify(s)} as RFC3339 failed`);
  const [, y, mo, d, h, mi, sec, frac = '', zone] = m;
  const seconds = BigInt(utcMs(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec)) / 1000);
  let offset = 0n;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone![0] === '-' ? -1n : 1n;
    offset = sign * (BigInt(Number(zone!.slice(1, 3))) * 3600n + BigInt(Number(zone!.slice(4, 6))) * 60n);
  }
  const ns = (seconds - offset) * 1_000_000_000n + BigInt(frac.padEnd(9, '0') || '0');
  if (ns < INT64_MIN || ns > INT64_MAX) throw builtinError(`${name}: time outside of valid range`);
  return Number(ns);
}

function parseDuration(name: string, s: string): number {
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    consumed = re.lastIndex;
  }
  if (rest === '' || consumed !== rest.length)
    throw builtinError(`${name}: time: invalid duration ${JSON.stringify(s)}`);
  return sign * Math.round(total);
}

/** An instant operand: `ns`, `[ns, tz]` or `[ns, tz, layout]`. */
function instant(name: string, arg: Value): { ns: number; zone: string; layout?: string } {
  if (!Array.isArray(arg)) return { ns: num(name, [arg], 0), zone: 'UTC' };
  const ns = num(name, [arg[0] ?? null], 0);
  let zone = 'UTC';
  if (arg[1] !== undefined) {
    mustBe(name, 0, arg[1], 'string');
    if (arg[1] !== '' && arg[1] !== 'Local') zone = arg[1] as string;
  }
  const layout = arg[2] === undefined ? undefined : str(name, [arg[2]], 0);
  return { ns, zone, layout };
}

function fields(name: string, arg: Value): CalendarFields & { layout?: string } {
  const { ns, zone, layout } = instant(name, arg);
  try {
    return { ...calendarFields(ns, zone), layout };
  } catch {
    throw builtinError(`${name}: unknown time zone ${zone}`);
  }
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
      return formatLayout(f, f.layout ?? '2006-01-02T15:04:05.999999999Z07:00');
    },
  },
  'time.parse_ns': {
    arity: 2,
    fn: (args, name) => {
      const layout = str(name, args, 0);
      const value = str(name, args, 1);
      const ns = parseLayout(layout, value);
      if (ns === undefined)
        throw builtinError(`${name}: parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}`);
      return Number(ns);
    },
  },
  'time.diff': {
    arity: 2,
    fn: ([a, b], name) => {
      const ta = instant(name, a!).ns;
      const tb = instant(name, b!).ns;
      const [first, second] = ta <= tb ? [a!, b!] : [b!, a!];
      return diff(fields(name, first), fields(name, second));
    },
  },
  'time.add_date': {
    arity: 4,
    fn: (args, name) => {
      const ns = num(name, args, 0);
      const d = new Date(Math.floor(ns / 1e6));
      d.setUTCFullYear(
        d.getUTCFullYear() + int(name, args, 1),
        d.getUTCMonth() + int(name, args, 2),
        d.getUTCDate() + int(name, args, 3),
      );
      return d.getTime() * 1e6 + (ns % 1e6);
    },
  },
};
