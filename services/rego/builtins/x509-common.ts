/**
 * What the X.509 readers share (x509-model.ts and the files next to it): JSON as Go marshals it,
 * Go's integers and times, small ASN.1 readers, and Go's error texts for what they refuse.
 */
import { AsnParser } from '@peculiar/asn1-schema';
import * as asn1js from 'asn1js';

/** JSON as Go marshals it; integers beyond 2^53 are BigInts. */
export type GoJSON = null | boolean | number | bigint | string | GoJSON[] | { [key: string]: GoJSON };

export class X509Error extends Error {}

export const b64 = (b: ArrayBuffer | Uint8Array | null | undefined): string | null =>
  b ? Buffer.from(b instanceof ArrayBuffer ? new Uint8Array(b) : b).toString('base64') : null;

export function bigFromBytes(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

/** A Go int or *big.Int: a number when exact, else a BigInt. */
export function goInt(n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n;
}

/** A two's complement INTEGER's content bytes. */
export function signedBig(b: Uint8Array): bigint {
  const u = bigFromBytes(b);
  return b.length > 0 && b[0]! & 0x80 ? u - (1n << BigInt(b.length * 8)) : u;
}

export const oidInts = (oid: string): number[] => oid.split('.').map(Number);

/** Go's `time.Time` JSON: RFC 3339 with fractional seconds only when not zero, in UTC. */
export function goTime(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

export function oidOf(v: asn1js.AsnType | undefined): string {
  return v instanceof asn1js.ObjectIdentifier ? v.valueBlock.toString() : '';
}

/** The content octets of an element (primitive or constructed). */
export function rawContent(v: asn1js.AsnType): Uint8Array {
  const full = new Uint8Array(v.valueBeforeDecodeView);
  return full.subarray(full.length - v.lenBlock.length);
}
export function parseAs<T>(value: Uint8Array, type: new () => T, what: string): T {
  try {
    return AsnParser.parse(value, type);
  } catch {
    throw new X509Error(`x509: invalid ${what}`);
  }
}

export function integerOf(value: Uint8Array | ArrayBuffer): number {
  const b = value instanceof Uint8Array ? value : new Uint8Array(value);
  return Number(signedBig(b));
}

/** The raw bytes of the children of a DER SEQUENCE. */
export function children(der: ArrayBuffer | Uint8Array): Uint8Array[] {
  const parsed = asn1js.fromBER(der instanceof Uint8Array ? Uint8Array.from(der) : der);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence))
    throw new X509Error('x509: malformed certificate');
  return parsed.result.valueBlock.value.map((v) => new Uint8Array(v.valueBeforeDecodeView));
}

/** `f()`, with an unexpected failure of the ASN.1 readers reported as Go's error `text`. */
export function asGoError<T>(f: () => T, text: string): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof X509Error) throw err;
    throw new X509Error(text);
  }
}

/**
 * Go's `asn1.Unmarshal` error for DER that is not the structure expected: the "tags don't match"
 * text when the outer element is not a SEQUENCE, else a shorter structure error.
 */
export function asn1Error(der: Buffer, structName: string): string {
  if (der.length < 2) return 'asn1: syntax error: data truncated';
  const b0 = der[0]!;
  let offset = 2;
  let length = der[1]!;
  if (length & 0x80) {
    const n = length & 0x7f;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (der[2 + i] ?? 0);
    offset += n;
  }
  if (b0 !== 0x30)
    return (
      `asn1: structure error: tags don't match (16 vs {class:${b0 >> 6} tag:${b0 & 0x1f} length:${length} ` +
      `isCompound:${(b0 & 0x20) !== 0}}) {optional:false explicit:false application:false private:false ` +
      `defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} ${structName} @${offset}`
    );
  if (offset + length > der.length) return 'asn1: syntax error: data truncated';
  return "asn1: structure error: tags don't match";
}
