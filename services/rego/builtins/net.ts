/** `net.cidr_*` builtins over IPv4 and IPv6 addresses, as BigInts. */
import { builtinError } from '../errors.ts';
import { type RegoObject, RegoSet, type Value } from '../values.ts';
import { type BuiltinTable, mustBe, str } from './types.ts';

interface Cidr {
  v6: boolean;
  base: bigint;
  bits: number;
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function parseIPv6(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (g.includes('.')) {
        const v4 = parseIPv4(g);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(Number.parseInt(g, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  return [...head, ...Array(fill).fill(0), ...tail].reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

function parseIP(s: string): { v6: boolean; value: bigint } | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { v6: false, value: v4 };
  const v6 = parseIPv6(s);
  return v6 === undefined ? undefined : { v6: true, value: v6 };
}

function parseCidr(s: string): Cidr | undefined {
  const [addr, bitsText, extra] = s.split('/');
  if (bitsText === undefined || extra !== undefined || !/^\d+$/.test(bitsText)) return undefined;
  const ip = parseIP(addr!);
  const bits = Number(bitsText);
  if (!ip || bits > (ip.v6 ? 128 : 32)) return undefined;
  const width = ip.v6 ? 128 : 32;
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - bits)) - 1n);
  return { v6: ip.v6, base: ip.value & mask, bits };
}

function cidrOrFail(name: string, s: string): Cidr {
  const c = parseCidr(s);
  if (!c) throw builtinError(`${name}: invalid CIDR address: ${s}`);
  return c;
}

function size(c: Cidr): bigint {
  return 1n << BigInt((c.v6 ? 128 : 32) - c.bits);
}

function containsIP(c: Cidr, v6: boolean, value: bigint): boolean {
  return c.v6 === v6 && value >= c.base && value < c.base + size(c);
}

/**
 * An element of `net.cidr_merge`, as OPA reads it: a CIDR, or a bare IPv4 address with Go's
 * classful default mask (/8, /16 or /24 by its first octet); a bare IPv6 address has no default.
 */
function mergeable(name: string, s: string): { range: Cidr; text: string } {
  const ip = parseIP(s);
  if (!ip) {
    const range = cidrOrFail(name, s);
    return { range, text: cidrText(range) };
  }
  if (ip.v6) throw builtinError(`${name}: IPv6 invalid: needs prefix length`);
  const first = Number(ip.value >> 24n);
  const bits = first < 0x80 ? 8 : first < 0xc0 ? 16 : 24;
  const base = ip.value & (0xffffffffn << BigInt(32 - bits)) & 0xffffffffn;
  return { range: { v6: false, base, bits }, text: `${formatIP(false, ip.value)}/${bits}` };
}

function cidrText(c: Cidr): string {
  return `${formatIP(c.v6, c.base)}/${c.bits}`;
}

/** Whether two ranges overlap or are adjacent: OPA merges those into one range. */
function touches(a: Cidr, b: Cidr): boolean {
  return a.v6 === b.v6 && a.base <= b.base + size(b) && b.base <= a.base + size(a);
}

/** A CIDR or bare IP, as the range it covers. */
function range(name: string, s: string): Cidr {
  const c = parseCidr(s);
  if (c) return c;
  const ip = parseIP(s);
  if (!ip) throw builtinError(`${name}: invalid CIDR address: ${s}`);
  return { v6: ip.v6, base: ip.value, bits: ip.v6 ? 128 : 32 };
}

function contains(outer: Cidr, inner: Cidr): boolean {
  return outer.v6 === inner.v6 && outer.bits <= inner.bits && containsIP(outer, inner.v6, inner.base);
}

function formatIP(v6: boolean, value: bigint): string {
  if (!v6) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) =>
    Number((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
  );
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** The items of a `cidr_contains_matches` operand with their keys (index or object key). */
function matchItems(name: string, operand: Value, index: number): [Value, string][] {
  const item = (key: Value, v: Value): [Value, string] => {
    if (typeof v === 'string') return [key, v];
    if (Array.isArray(v) && typeof v[0] === 'string') return [key, v[0]];
    throw builtinError(`${name}: operand ${index + 1}: element must be string or non-empty array`);
  };
  if (typeof operand === 'string') return [[operand, operand]];
  mustBe(name, index, operand, 'string', 'array', 'set', 'object');
  if (Array.isArray(operand)) return operand.map((v, i) => item(i, v));
  if (operand instanceof RegoSet) return operand.sorted().map((v) => item(v, v));
  return (operand as RegoObject).sortedPairs().map(([k, v]) => item(k, v));
}

/**
 * The fewest CIDRs covering exactly the given ones (bare IPs are /32 or /128): ranges contained in
 * another go, and two halves of one network become that network, repeatedly.
 */
function merge(ranges: Cidr[]): Cidr[] {
  const sorted = [...ranges].sort((a, b) =>
    a.v6 !== b.v6 ? (a.v6 ? 1 : -1) : a.base !== b.base ? (a.base < b.base ? -1 : 1) : a.bits - b.bits,
  );
  const out: Cidr[] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last && contains(last, c)) continue;
    out.push(c);
    // Sorted and disjoint: only the top two can be halves of one network.
    for (;;) {
      const b = out[out.length - 1]!;
      const a = out[out.length - 2];
      if (!a || a.v6 !== b.v6 || a.bits !== b.bits || a.bits === 0) break;
      const parent: Cidr = { v6: a.v6, base: a.base, bits: a.bits - 1 };
      if (a.base % size(parent) !== 0n || b.base !== a.base + size(a)) break;
      out.splice(-2, 2, parent);
    }
  }
  return out;
}

export const net: BuiltinTable = {
  'net.cidr_merge': {
    arity: 1,
    fn: (args, name) => {
      const operand = args[0]!;
      if (!Array.isArray(operand) && !(operand instanceof RegoSet))
        throw builtinError(`${name}: operand must be an array`);
      const items = Array.isArray(operand) ? operand : operand.values();
      const elements = items.map((v) => {
        if (typeof v !== 'string') throw builtinError(`${name}: element must be string`);
        return mergeable(name, v);
      });
      const ranges = elements.map((e) => e.range);
      // Go prints a network that touches no other as parsed: a bare IPv4 address unmasked.
      const alone = new Map(
        elements
          .filter((e) => !ranges.some((other) => other !== e.range && touches(e.range, other)))
          .map((e) => [cidrText(e.range), e.text]),
      );
      return new RegoSet(merge(ranges).map((c) => alone.get(cidrText(c)) ?? cidrText(c)));
    },
  },
  'net.cidr_is_valid': { arity: 1, fn: ([s]) => typeof s === 'string' && parseCidr(s) !== undefined },
  'net.cidr_contains': {
    arity: 2,
    fn: (args, name) => contains(cidrOrFail(name, str(name, args, 0)), range(name, str(name, args, 1))),
  },
  'net.cidr_intersects': {
    arity: 2,
    fn: (args, name) => {
      const a = cidrOrFail(name, str(name, args, 0));
      const b = cidrOrFail(name, str(name, args, 1));
      return contains(a, b) || contains(b, a);
    },
  },
  'net.cidr_expand': {
    arity: 1,
    fn: (args, name) => {
      const c = cidrOrFail(name, str(name, args, 0));
      if (size(c) > 65536n) throw builtinError(`${name}: CIDR too large to expand`);
      const out = new RegoSet();
      for (let v = c.base; v < c.base + size(c); v++) out.add(formatIP(c.v6, v));
      return out;
    },
  },
  'net.cidr_contains_matches': {
    arity: 2,
    fn: (args, name) => {
      const cidrs = matchItems(name, args[0]!, 0);
      const targets = matchItems(name, args[1]!, 1);
      const out = new RegoSet();
      for (const [ck, cs] of cidrs) {
        const c = cidrOrFail(name, cs);
        for (const [tk, ts] of targets) if (contains(c, range(name, ts))) out.add([ck, tk]);
      }
      return out;
    },
  },
};
