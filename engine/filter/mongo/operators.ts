import type { JsonValue } from '../../../operators/record/json.ts';
import { MISSING, resolvePath } from './path.ts';
import { bsonEqual, compareBson, typeRank } from './values.ts';

/**
 * MongoDB's field operators: each answers what `{<path>: {<op>: arg}}` answers for the
 * document `root`, with `segments` the path split at dots.
 */
type Path = readonly string[];

export function matchesEq(root: JsonValue, path: Path, r: JsonValue): boolean {
  for (const v of resolvePath(root, path, true)) {
    if (v === MISSING ? r === null : bsonEqual(v, r)) return true;
  }
  return false;
}

export function matchesIn(root: JsonValue, path: Path, list: readonly JsonValue[]): boolean {
  const candidates = resolvePath(root, path, true);
  for (const v of candidates) {
    for (const r of list) if (v === MISSING ? r === null : bsonEqual(v, r)) return true;
  }
  return false;
}

export type RangeOperator = '$gt' | '$gte' | '$lt' | '$lte';

/** `$gt` … `$lte`: only values of r's type bracket compare; `$gte`/`$lte: null` match missing. */
export function matchesRange(root: JsonValue, path: Path, op: RangeOperator, r: JsonValue): boolean {
  const rank = typeRank(r);
  const inclusive = op === '$gte' || op === '$lte';
  for (const v of resolvePath(root, path, true)) {
    if (v === MISSING) {
      if (r === null && inclusive) return true;
      continue;
    }
    if (typeRank(v) !== rank) continue;
    const c = compareBson(v, r);
    if (c === 0 ? inclusive : op === '$gt' || op === '$gte' ? c > 0 : c < 0) return true;
  }
  return false;
}

export function matchesElemMatchEq(root: JsonValue, path: Path, r: JsonValue): boolean {
  for (const v of resolvePath(root, path)) {
    if (Array.isArray(v) && v.some((e) => bsonEqual(e, r))) return true;
  }
  return false;
}

export function matchesSize(root: JsonValue, path: Path, n: number): boolean {
  return resolvePath(root, path).some((v) => Array.isArray(v) && v.length === n);
}

export function matchesTypeArray(root: JsonValue, path: Path): boolean {
  return resolvePath(root, path).some(Array.isArray);
}

export function matchesExists(root: JsonValue, path: Path): boolean {
  return resolvePath(root, path).some((v) => v !== MISSING);
}

export function matchesRegex(root: JsonValue, path: Path, regex: RegExp): boolean {
  for (const v of resolvePath(root, path, true)) {
    if (typeof v === 'string') {
      regex.lastIndex = 0;
      if (regex.test(v)) return true;
    }
  }
  return false;
}

/**
 * A JavaScript RegExp with MongoDB's `$options` (i, m, s, x). `x` (extended) has no JavaScript
 * flag: unescaped whitespace and `#` comments outside character classes are removed first.
 */
export function compileRegex(pattern: string, options: string | null | undefined): RegExp {
  let flags = '';
  let source = pattern;
  for (const option of options ?? '') {
    if (option === 'i' || option === 'm' || option === 's') {
      if (!flags.includes(option)) flags += option;
    } else if (option === 'x') {
      source = stripExtended(source);
    } else {
      throw new Error(`unsupported regex option "${option}" (allowed: i, m, s, x)`);
    }
  }
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new Error(`invalid regex ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}

function stripExtended(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      out += ch + (source[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
    } else if (ch === '#') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (!/\s/.test(ch)) {
      out += ch;
    }
  }
  return out;
}
