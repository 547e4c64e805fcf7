/**
 * Calendar fields of an instant in a time zone (via Intl) and Go's reference-time layouts
 * (`2006-01-02T15:04:05Z07:00`), which `time.format` and `time.parse_ns` take.
 */
export interface CalendarFields {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** Nanoseconds within the second. */
  frac: number;
  /** 0 = Sunday. */
  wd: number;
  /** Offset of the zone from UTC, in minutes. */
  offset: number;
  /** The zone's abbreviation (`EST`, `UTC`) when Intl has a letters-only one. */
  abbreviation?: string;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** UTC milliseconds of a calendar time; unlike Date.UTC, years 0–99 are not taken as 19xx. */
export function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

export function weekdayName(wd: number): string {
  return WEEKDAYS[wd]!;
}

/**
 * Go's named layouts that OPA's `time.format` and `time.parse_ns` take by name (its
 * `acceptedTimeFormats`); any other string is a layout itself.
 */
const NAMED_LAYOUTS: Record<string, string> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Nano: '2006-01-02T15:04:05.999999999Z07:00',
};

export function layoutNamed(layout: string): string {
  return Object.hasOwn(NAMED_LAYOUTS, layout) ? NAMED_LAYOUTS[layout]! : layout;
}

/** Whether Intl knows the zone (Go's `LoadLocation` succeeds for the IANA names). */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The calendar fields of exact Unix nanoseconds in a zone Intl knows. */
export function calendarFields(ns: bigint, zone: string): CalendarFields {
  const ms = Number(floorDiv(ns, 1_000_000n));
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'long',
      timeZoneName: 'short',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const f = {
    y: Number(parts.year),
    mo: Number(parts.month),
    d: Number(parts.day),
    h: Number(parts.hour),
    mi: Number(parts.minute),
    s: Number(parts.second),
  };
  const localMs = utcMs(f.y, f.mo, f.d, f.h, f.mi, f.s);
  const offset = Math.round((localMs - (ms - (((ms % 1000) + 1000) % 1000))) / 60000);
  const frac = Number(ns - floorDiv(ns, 1_000_000_000n) * 1_000_000_000n);
  const abbreviation = /^[A-Z]+$/.test(parts.timeZoneName ?? '') ? parts.timeZoneName : undefined;
  return { ...f, frac, wd: WEEKDAYS.indexOf(parts.weekday!), offset, abbreviation };
}

/** Division rounding toward negative infinity (BigInt's `/` truncates). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Layout tokens (fractions of a second apart), longest first so that `2006` wins over `2`. */
const TOKENS = [
  'January',
  'Monday',
  'Jan',
  'Mon',
  'MST',
  '2006',
  'Z07:00',
  '-07:00',
  'Z0700',
  '-0700',
  'Z07',
  '-07',
  '002',
  '01',
  '02',
  '_2',
  '03',
  '04',
  '05',
  '06',
  '15',
  'PM',
  'pm',
  '1',
  '2',
  '3',
  '4',
  '5',
];

/** Go's fractional seconds: `.` or `,` then a run of one repeated digit, 0 or 9, not followed by a digit. */
const FRACTION = /[.,](0+|9+)(?!\d)/y;

function tokenize(layout: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < layout.length) {
    FRACTION.lastIndex = i;
    const token = FRACTION.exec(layout)?.[0] ?? TOKENS.find((t) => layout.startsWith(t, i));
    if (token) {
      out.push(token);
      i += token.length;
    } else {
      const last = out[out.length - 1];
      if (last !== undefined && !TOKENS.includes(last) && !isFraction(last))
        out[out.length - 1] = last + layout[i];
      else out.push(layout[i]!);
      i++;
    }
  }
  return out;
}

function isFraction(token: string): boolean {
  FRACTION.lastIndex = 0;
  return FRACTION.exec(token)?.[0] === token;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

function zone(offset: number, token: string): string {
  if (offset === 0 && token.startsWith('Z')) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const h = pad(Math.floor(Math.abs(offset) / 60), 2);
  const m = pad(Math.abs(offset) % 60, 2);
  if (token.endsWith('07:00')) return `${sign}${h}:${m}`;
  if (token.endsWith('0700')) return `${sign}${h}${m}`;
  return `${sign}${h}`;
}

export function formatLayout(f: CalendarFields, layout: string): string {
  const dayOfYear = Math.round((utcMs(f.y, f.mo, f.d) - utcMs(f.y, 1, 1)) / 86400000) + 1;
  const h12 = f.h % 12 === 0 ? 12 : f.h % 12;
  return tokenize(layout)
    .map((t) => {
      switch (t) {
        case 'January':
          return MONTHS[f.mo - 1]!;
        case 'Jan':
          return MONTHS[f.mo - 1]!.slice(0, 3);
        case 'Monday':
          return WEEKDAYS[f.wd]!;
        case 'Mon':
          return WEEKDAYS[f.wd]!.slice(0, 3);
        case 'MST':
          // Go writes the zone's abbreviation, or the offset as -0700 when it has none.
          return f.abbreviation ?? zone(f.offset, '-0700');
        case '2006':
          return pad(f.y, 4);
        case '06':
          return pad(f.y % 100, 2);
        case '01':
          return pad(f.mo, 2);
        case '1':
          return String(f.mo);
        case '02':
          return pad(f.d, 2);
        case '_2':
          return String(f.d).padStart(2, ' ');
        case '2':
          return String(f.d);
        case '002':
          return pad(dayOfYear, 3);
        case '15':
          return pad(f.h, 2);
        case '03':
          return pad(h12, 2);
        case '3':
          return String(h12);
        case '04':
          return pad(f.mi, 2);
        case '4':
          return String(f.mi);
        case '05':
          return pad(f.s, 2);
        case '5':
          return String(f.s);
        case 'PM':
          return f.h < 12 ? 'AM' : 'PM';
        case 'pm':
          return f.h < 12 ? 'am' : 'pm';
        case 'Z07:00':
        case '-07:00':
        case 'Z0700':
        case '-0700':
        case 'Z07':
        case '-07':
          return zone(f.offset, t);
        default: {
          if (!isFraction(t)) return t;
          const digits = pad(f.frac, 9).slice(0, t.length - 1);
          if (t[1] === '0') return `${t[0]}${digits}`;
          const significant = digits.replace(/0+$/, '');
          return significant === '' ? '' : `${t[0]}${significant}`;
        }
      }
    })
    .join('');
}

/** Parses `value` by `layout`; returns Unix nanoseconds (as BigInt) or undefined when it does not match. */
export function parseLayout(layout: string, value: string): bigint | undefined {
  const groups: string[] = [];
  let pattern = '';
  for (const t of tokenize(layout)) {
    const group = (re: string) => {
      groups.push(t);
      pattern += `(${re})`;
    };
    if (t === 'January') group(MONTHS.join('|'));
    else if (t === 'Jan') group(MONTHS.map((m) => m.slice(0, 3)).join('|'));
    else if (t === 'Monday') group(WEEKDAYS.join('|'));
    else if (t === 'Mon') group(WEEKDAYS.map((d) => d.slice(0, 3)).join('|'));
    else if (t === 'MST') group('[A-Z]{3,4}');
    else if (t === '2006') group('\\d{4}');
    else if (['06', '01', '02', '15', '03', '04', '05'].includes(t)) group('\\d{2}');
    else if (t === '_2') group(' ?\\d{1,2}');
    else if (t === '002') group('\\d{3}');
    else if (['1', '2', '3', '4', '5'].includes(t)) group('\\d{1,2}');
    else if (t === 'PM' || t === 'pm') group('AM|PM|am|pm');
    else if (/^[Z-]07/.test(t)) group(`${t.startsWith('Z') ? 'Z|' : ''}[+-]\\d{2}(?::?\\d{2})?`);
    else if (isFraction(t)) group(t[1] === '0' ? `[.,]\\d{${t.length - 1}}` : '(?:[.,]\\d+)?');
    else pattern += t.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  const m = new RegExp(`^${pattern}(\\.\\d+)?$`).exec(value);
  if (!m) return undefined;
  let y = 1;
  let mo = 1;
  let d = 1;
  let h = 0;
  let mi = 0;
  let s = 0;
  let fracText = m[groups.length + 1] ?? '';
  let pm: boolean | undefined;
  let offset = 0;
  groups.forEach((t, i) => {
    const v = m[i + 1]!;
    if (t === 'January' || t === 'Jan') mo = MONTHS.findIndex((x) => x.startsWith(v)) + 1;
    else if (t === '2006') y = Number(v);
    else if (t === '06') y = 2000 + Number(v) - (Number(v) >= 69 ? 100 : 0);
    else if (t === '01' || t === '1') mo = Number(v);
    else if (t === '02' || t === '2' || t === '_2') d = Number(v.trim());
    else if (t === '15' || t === '03' || t === '3') h = Number(v);
    else if (t === '04' || t === '4') mi = Number(v);
    else if (t === '05' || t === '5') s = Number(v);
    else if (t === 'PM' || t === 'pm') pm = v.toUpperCase() === 'PM';
    else if (/^[Z-]07/.test(t) && v !== 'Z') {
      const digits = v.replace(':', '');
      offset = (v[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || 0));
    } else if (isFraction(t)) fracText = v;
  });
  if (pm !== undefined) h = (h % 12) + (pm ? 12 : 0);
  const seconds = BigInt(utcMs(y, mo, d, h, mi, s) / 1000) - BigInt(offset * 60);
  return seconds * 1_000_000_000n + BigInt(fracText.slice(1).padEnd(9, '0').slice(0, 9) || '0');
}
