/** Encodings: base64, base64url, hex, JSON and URL query strings. */
import { builtinError } from '../errors.ts';
import { fromJSON, RegoObject, toJSONText, type Value } from '../values.ts';
import { type BuiltinTable, collection, obj, str } from './types.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(name: string, s: string, url: boolean): string {
  const normalized = url ? s.replace(/-/g, '+').replace(/_/g, '/') : s;
  const padded = url
    ? normalized.padEnd(normalized.length + ((4 - (normalized.length % 4)) % 4), '=')
    : normalized;
  if (!BASE64.test(padded) || padded.length % 4 !== 0)
    throw builtinError(`${name}: illegal base64 data at input byte 0`);
  return Buffer.from(padded, 'base64').toString('utf8');
}

function parseJSON(name: string, s: string): Value {
  try {
    return fromJSON(JSON.parse(s));
  } catch (err) {
    throw builtinError(`${name}: ${(err as Error).message}`);
  }
}

function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/%20/g, '+')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export const encoding: BuiltinTable = {
  'base64.encode': { arity: 1, fn: (args, name) => Buffer.from(str(name, args, 0)).toString('base64') },
  'base64.decode': { arity: 1, fn: (args, name) => decodeBase64(name, str(name, args, 0), false) },
  'base64.is_valid': {
    arity: 1,
    fn: ([s]) => typeof s === 'string' && BASE64.test(s) && s.length % 4 === 0,
  },
  'base64url.encode': {
    arity: 1,
    fn: (args, name) =>
      Buffer.from(str(name, args, 0))
        .toString('base64url')
        .padEnd(Math.ceil(Buffer.byteLength(args[0] as string) / 3) * 4, '='),
  },
  'base64url.encode_no_pad': {
    arity: 1,
    fn: (args, name) => Buffer.from(str(name, args, 0)).toString('base64url'),
  },
  'base64url.decode': { arity: 1, fn: (args, name) => decodeBase64(name, str(name, args, 0), true) },
  'hex.encode': { arity: 1, fn: (args, name) => Buffer.from(str(name, args, 0)).toString('hex') },
  'hex.decode': {
    arity: 1,
    fn: (args, name) => {
      const s = str(name, args, 0);
      const bad = [...s].find((c) => !/[0-9a-fA-F]/.test(c));
      if (bad)
        throw builtinError(
          `${name}: encoding/hex: invalid byte: U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${bad}'`,
        );
      if (s.length % 2 !== 0) throw builtinError(`${name}: encoding/hex: odd length hex string`);
      return Buffer.from(s, 'hex').toString('utf8');
    },
  },
  'json.marshal': { arity: 1, fn: ([v]) => toJSONText(v!) },
  'json.unmarshal': { arity: 1, fn: (args, name) => parseJSON(name, str(name, args, 0)) },
  'json.is_valid': {
    arity: 1,
    fn: ([s]) => {
      if (typeof s !== 'string') return false;
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    },
  },
  'urlquery.encode': { arity: 1, fn: (args, name) => queryEscape(str(name, args, 0)) },
  'urlquery.decode': {
    arity: 1,
    fn: (args, name) => {
      try {
        return decodeURIComponent(str(name, args, 0).replace(/\+/g, ' '));
      } catch {
        throw builtinError(`${name}: invalid URL escape`);
      }
    },
  },
  'urlquery.encode_object': {
    arity: 1,
    fn: (args, name) => {
      const parts: string[] = [];
      for (const [k, v] of obj(name, args, 0).sortedPairs()) {
        const values = typeof v === 'string' ? [v] : collection(name, [v], 0);
        for (const item of values) parts.push(`${queryEscape(String(k))}=${queryEscape(String(item))}`);
      }
      return parts.join('&');
    },
  },
  'urlquery.decode_object': {
    arity: 1,
    fn: (args, name) => {
      const out = new RegoObject();
      for (const [k, v] of new URLSearchParams(str(name, args, 0)))
        out.set(k, [...((out.get(k) as Value[]) ?? []), v]);
      return out;
    },
  },
};
