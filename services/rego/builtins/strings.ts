/** String builtins, `sprintf`, `format_int` and `to_number`. */
import { builtinError, typeError } from '../errors.ts';
import { formatValue, type Value } from '../values.ts';
import { type BuiltinTable, collection, int, mustBe, num, obj, str } from './types.ts';

function trimSet(s: string, cut: string, left: boolean, right: boolean): string {
  const chars = new Set([...cut]);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (left && a < b && chars.has(cps[a]!)) a++;
  while (right && b > a && chars.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

/** Operands are a string or an array/set of strings each; true when one pair matches. */
function anyMatch(name: string, args: Value[], match: (s: string, p: string) => boolean): boolean {
  const strings = (i: number): string[] => {
    const v = args[i]!;
    if (typeof v === 'string') return [v];
    return collection(name, args, i).map((item) => {
      mustBe(name, i, item, 'string');
      return item as string;
    });
  };
  const subjects = strings(0);
  const patterns = strings(1);
  return subjects.some((s) => patterns.some((p) => match(s, p)));
}

/**
 * Go's `strings.NewReplacer(pairs...).Replace(s)`, which OPA's `strings.replace_n` calls with the
 * pairs in sorted key order: one pass over the UTF-8 bytes; at each position the first pair whose
 * key starts there wins; replaced text is not scanned again. The empty key matches at every
 * position (end included), and after it, at the same position, the first non-empty key that
 * matches is replaced too.
 */
function replaceAll(s: string, pairs: [string, string][]): string {
  const source = Buffer.from(s);
  const keys = pairs.map(([k, v]) => ({ key: Buffer.from(k), value: Buffer.from(v) }));
  const out: Buffer[] = [];
  let last = 0;
  let afterEmptyMatch = false;
  for (let i = 0; i <= source.length; ) {
    const hit = keys.find(
      ({ key }) =>
        !(afterEmptyMatch && key.length === 0) &&
        i + key.length <= source.length &&
        source.compare(key, 0, key.length, i, i + key.length) === 0,
    );
    afterEmptyMatch = hit !== undefined && hit.key.length === 0;
    if (hit === undefined) {
      i++;
      continue;
    }
    out.push(source.subarray(last, i), hit.value);
    i += hit.key.length;
    last = i;
  }
  out.push(source.subarray(last));
  return Buffer.concat(out).toString('utf8');
}

/** `%v` of a string is the bare string; elsewhere values print in Rego syntax. */
function show(v: Value): string {
  return typeof v === 'string' ? v : formatValue(v);
}

function sprintf(format: string, values: Value[]): string {
  let i = 0;
  return format.replace(
    /%([-+ 0#]*)(\d+)?(?:\.(\d+))?([%vsdfxXobeEgGtq])/g,
    (_match, flags: string, width, prec, verb: string) => {
      if (verb === '%') return '%';
      const v = values[i++];
      if (v === undefined) return `%!${verb}(MISSING)`;
      let out: string;
      switch (verb) {
        case 'd':
          out =
            typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))
              ? String(v)
              : `%!d(${show(v)})`;
          break;
        case 'f':
          out = typeof v === 'number' ? v.toFixed(prec === undefined ? 6 : Number(prec)) : `%!f(${show(v)})`;
          break;
        case 'x':
        case 'X':
          out = typeof v === 'number' ? v.toString(16) : Buffer.from(String(v)).toString('hex');
          if (verb === 'X') out = out.toUpperCase();
          break;
        case 'o':
          out = typeof v === 'number' ? v.toString(8) : show(v);
          break;
        case 'b':
          out = typeof v === 'number' ? v.toString(2) : show(v);
          break;
        case 'e':
          out =
            typeof v === 'number'
              ? v.toExponential(prec === undefined ? 6 : Number(prec)).replace(/e([+-])(\d)$/, 'e$10$2')
              : show(v);
          break;
        case 'q':
          out = JSON.stringify(show(v));
          break;
        case 't':
          out = typeof v === 'boolean' ? String(v) : show(v);
          break;
        default:
          out = show(v);
      }
      if (width !== undefined && out.length < Number(width)) {
        const pad = flags.includes('0') && !flags.includes('-') ? '0' : ' ';
        out = flags.includes('-') ? out.padEnd(Number(width)) : out.padStart(Number(width), pad);
      }
      return out;
    },
  );
}

export const strings: BuiltinTable = {
  concat: {
    arity: 2,
    fn: (args, name) => {
      const sep = str(name, args, 0);
      return collection(name, args, 1)
        .map((v) => {
          mustBe(name, 1, v, 'string');
          return v as string;
        })
        .join(sep);
    },
  },
  contains: { arity: 2, fn: (args, name) => str(name, args, 0).includes(str(name, args, 1)) },
  startswith: { arity: 2, fn: (args, name) => str(name, args, 0).startsWith(str(name, args, 1)) },
  endswith: { arity: 2, fn: (args, name) => str(name, args, 0).endsWith(str(name, args, 1)) },
  lower: { arity: 1, fn: (args, name) => str(name, args, 0).toLowerCase() },
  upper: { arity: 1, fn: (args, name) => str(name, args, 0).toUpperCase() },
  split: { arity: 2, fn: (args, name) => str(name, args, 0).split(str(name, args, 1)) },
  replace: {
    arity: 3,
    fn: (args, name) =>
      str(name, args, 0)
        .split(str(name, args, 1))
        .join(str(name, args, 2)),
  },
  'strings.replace_n': {
    arity: 2,
    fn: (args, name) => {
      const pairs = obj(name, args, 0)
        .sortedPairs()
        .map(([k, v]): [string, string] => {
          if (typeof k !== 'string')
            throw typeError(`${name}: operand 1 non-string key found in pattern object`);
          if (typeof v !== 'string')
            throw typeError(`${name}: operand 1 non-string value found in pattern object`);
          return [k, v];
        });
      return replaceAll(str(name, args, 1), pairs);
    },
  },
  'strings.any_prefix_match': {
    arity: 2,
    fn: (args, name) => anyMatch(name, args, (s, p) => s.startsWith(p)),
  },
  'strings.any_suffix_match': {
    arity: 2,
    fn: (args, name) => anyMatch(name, args, (s, p) => s.endsWith(p)),
  },
  'strings.reverse': { arity: 1, fn: (args, name) => [...str(name, args, 0)].reverse().join('') },
  'strings.count': { arity: 2, fn: (args, name) => str(name, args, 0).split(str(name, args, 1)).length - 1 },
  trim: { arity: 2, fn: (args, name) => trimSet(str(name, args, 0), str(name, args, 1), true, true) },
  trim_left: { arity: 2, fn: (args, name) => trimSet(str(name, args, 0), str(name, args, 1), true, false) },
  trim_right: { arity: 2, fn: (args, name) => trimSet(str(name, args, 0), str(name, args, 1), false, true) },
  trim_space: { arity: 1, fn: (args, name) => str(name, args, 0).trim() },
  trim_prefix: {
    arity: 2,
    fn: (args, name) => {
      const s = str(name, args, 0);
      const p = str(name, args, 1);
      return s.startsWith(p) ? s.slice(p.length) : s;
    },
  },
  trim_suffix: {
    arity: 2,
    fn: (args, name) => {
      const s = str(name, args, 0);
      const p = str(name, args, 1);
      return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
    },
  },
  substring: {
    arity: 3,
    fn: (args, name) => {
      const cps = [...str(name, args, 0)];
      const start = int(name, args, 1);
      const length = int(name, args, 2);
      if (start < 0) throw builtinError(`${name}: negative offset`);
      return cps.slice(start, length < 0 ? undefined : start + length).join('');
    },
  },
  indexof: {
    arity: 2,
    fn: (args, name) => {
      const s = str(name, args, 0);
      const i = s.indexOf(str(name, args, 1));
      return i < 0 ? -1 : [...s.slice(0, i)].length;
    },
  },
  indexof_n: {
    arity: 2,
    fn: (args, name) => {
      const s = str(name, args, 0);
      const sub = str(name, args, 1);
      const out: number[] = [];
      for (let i = s.indexOf(sub); i >= 0 && sub !== ''; i = s.indexOf(sub, i + 1))
        out.push([...s.slice(0, i)].length);
      return out;
    },
  },
  sprintf: {
    arity: 2,
    fn: (args, name) => {
      mustBe(name, 1, args[1]!, 'array');
      return sprintf(str(name, args, 0), args[1] as Value[]);
    },
  },
  format_int: {
    arity: 2,
    fn: (args, name) => {
      mustBe(name, 0, args[0]!, 'number');
      const n = args[0] as number | bigint;
      const base = num(name, args, 1);
      if (![2, 8, 10, 16].includes(base))
        throw builtinError(`${name}: operand 2 must be one of {2, 8, 10, 16}`);
      // As OPA (a big.Int truncated toward zero): every digit, also beyond 2^53, never `1e+21`.
      return (typeof n === 'bigint' ? n : BigInt(Math.trunc(n))).toString(base);
    },
  },
  to_number: {
    arity: 1,
    fn: ([v], name) => {
      mustBe(name, 0, v!, 'null', 'boolean', 'number', 'string');
      if (v === null) return 0;
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'number' || typeof v === 'bigint') return v;
      const s = v as string;
      // OPA refuses what Go's ParseFloat reads as non-finite before parsing: a type error.
      if (/^(inf|infinity|nan)$/.test(s.replace(/^[+-]+/, '').toLowerCase()))
        throw typeError(`${name}: operand 1 must be valid number string but got string`);
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s))
        throw builtinError(`${name}: strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`);
      const n = Number(s);
      if (!Number.isFinite(n))
        throw builtinError(`${name}: strconv.ParseFloat: parsing ${JSON.stringify(s)}: value out of range`);
      return n;
    },
  },
};
