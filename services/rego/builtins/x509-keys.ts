/**
 * Private keys as Go's `x509.ParsePKCS1PrivateKey`, `ParsePKCS8PrivateKey` and `ParseECPrivateKey`
 * give them to OPA (node:crypto reads the DER), with Go's JSON of the key structs and OPA's JWK.
 */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import { asGoError, asn1Error, bigFromBytes, type GoJSON, goInt, X509Error } from './x509-common.ts';

export type KeyKind = 'rsa' | 'ec' | 'ed25519' | 'x25519';

export interface PrivateKey {
  kind: KeyKind;
  jwk: JsonWebKey;
}

const PKCS8_ALGORITHMS: Record<string, KeyKind> = {
  '1.2.840.113549.1.1.1': 'rsa',
  '1.2.840.10045.2.1': 'ec',
  '1.3.101.112': 'ed25519',
  '1.3.101.110': 'x25519',
};

type Shape = 'pkcs1' | 'pkcs8' | 'sec1';
const STRUCT_NAMES: Record<Shape, string> = {
  pkcs1: 'pkcs1PrivateKey',
  pkcs8: 'pkcs8',
  sec1: 'ecPrivateKey',
};

/** Which of the three structures the DER has (by its fields' types), if any. */
function shapeOf(der: Buffer): { shape?: Shape; algorithm?: string } {
  try {
    return readShape(der);
  } catch {
    return {};
  }
}

function readShape(der: Buffer): { shape?: Shape; algorithm?: string } {
  const parsed = asn1js.fromBER(Uint8Array.from(der));
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) return {};
  const f = parsed.result.valueBlock.value;
  if (
    f[0] instanceof asn1js.Integer &&
    f[1] instanceof asn1js.Sequence &&
    f[2] instanceof asn1js.OctetString
  ) {
    const oid = f[1].valueBlock.value[0];
    return {
      shape: 'pkcs8',
      algorithm: oid instanceof asn1js.ObjectIdentifier ? oid.valueBlock.toString() : '',
    };
  }
  if (f[0] instanceof asn1js.Integer && f[1] instanceof asn1js.OctetString) return { shape: 'sec1' };
  if (f.length >= 9 && f.slice(0, 9).every((x) => x instanceof asn1js.Integer)) return { shape: 'pkcs1' };
  return {};
}

function nodeKey(der: Buffer, type: 'pkcs1' | 'pkcs8' | 'sec1'): KeyObject {
  return createPrivateKey({ key: der, format: 'der', type });
}

function toPrivateKey(key: KeyObject, kind: KeyKind): PrivateKey {
  if (kind === 'x25519') return { kind, jwk: {} };
  // node:crypto exports no JWK for curves Go does not know either (and for P-224, which Go knows).
  const jwk = asGoError(() => key.export({ format: 'jwk' }), 'x509: unknown elliptic curve');
  if (kind === 'ec' && jwk.crv !== 'P-256' && jwk.crv !== 'P-384' && jwk.crv !== 'P-521')
    throw new X509Error('x509: unknown elliptic curve');
  return { kind, jwk };
}

const USE_INSTEAD: Record<Shape, string> = {
  pkcs1: 'x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)',
  pkcs8: 'x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)',
  sec1: 'x509: failed to parse private key (use ParseECPrivateKey instead for this key format)',
};

/** Go's `ParsePKCS1PrivateKey`. */
export function parsePKCS1(der: Buffer): PrivateKey {
  const { shape } = shapeOf(der);
  if (shape !== 'pkcs1') {
    if (shape === 'sec1' || shape === 'pkcs8') throw new X509Error(USE_INSTEAD[shape]);
    throw new X509Error(asn1Error(der, STRUCT_NAMES.pkcs1));
  }
  try {
    return toPrivateKey(nodeKey(der, 'pkcs1'), 'rsa');
  } catch {
    throw new X509Error('x509: invalid RSA private key');
  }
}

/** Go's `ParseECPrivateKey`. */
export function parseEC(der: Buffer): PrivateKey {
  const { shape } = shapeOf(der);
  if (shape !== 'sec1')
    throw new X509Error(`x509: failed to parse EC private key: ${asn1Error(der, STRUCT_NAMES.sec1)}`);
  let key: KeyObject;
  try {
    key = nodeKey(der, 'sec1');
  } catch {
    throw new X509Error('x509: unknown elliptic curve');
  }
  return toPrivateKey(key, 'ec');
}

/** Go's `ParsePKCS8PrivateKey`. */
export function parsePKCS8(der: Buffer): PrivateKey {
  const { shape, algorithm } = shapeOf(der);
  if (shape !== 'pkcs8') {
    if (shape === 'sec1' || shape === 'pkcs1') throw new X509Error(USE_INSTEAD[shape]);
    throw new X509Error(asn1Error(der, STRUCT_NAMES.pkcs8));
  }
  const kind = PKCS8_ALGORITHMS[algorithm ?? ''];
  if (!kind)
    throw new X509Error(`x509: PKCS#8 wrapping contained private key with unknown algorithm: ${algorithm}`);
  let key: KeyObject;
  try {
    key = nodeKey(der, 'pkcs8');
  } catch {
    const what = { rsa: 'RSA', ec: 'EC', ed25519: 'Ed25519', x25519: 'X25519' }[kind];
    throw new X509Error(`x509: failed to parse ${what} private key embedded in PKCS#8`);
  }
  return toPrivateKey(key, kind);
}

/** crypto/tls's `parsePrivateKey`: PKCS#1, else PKCS#8 (RSA, ECDSA, Ed25519), else SEC 1. */
export function parseTLSPrivateKey(der: Buffer): PrivateKey {
  try {
    return parsePKCS1(der);
  } catch {}
  let pkcs8: PrivateKey | undefined;
  try {
    pkcs8 = parsePKCS8(der);
  } catch {}
  if (pkcs8) {
    if (pkcs8.kind === 'x25519')
      throw new X509Error('tls: found unknown private key type in PKCS#8 wrapping');
    return pkcs8;
  }
  try {
    return parseEC(der);
  } catch {}
  throw new X509Error('tls: failed to parse private key');
}

const big = (s: string | undefined): bigint => bigFromBytes(Buffer.from(s ?? '', 'base64url'));
const goBig = (s: string | undefined) => goInt(big(s));

/** The key's public part, to compare with a certificate's public key. */
export function publicParts(key: PrivateKey): { n?: bigint; x?: bigint; y?: bigint; ed?: string } {
  const j = key.jwk;
  if (key.kind === 'rsa') return { n: big(j.n) };
  if (key.kind === 'ec') return { x: big(j.x), y: big(j.y) };
  if (key.kind === 'ed25519') return { ed: Buffer.from(j.x ?? '', 'base64url').toString('base64') };
  return {};
}

/** Go's JSON of the key: `*rsa.PrivateKey`, `*ecdsa.PrivateKey`, `ed25519.PrivateKey` (bytes). */
export function keyJSON(key: PrivateKey): GoJSON {
  const j = key.jwk;
  switch (key.kind) {
    case 'rsa':
      return {
        N: goBig(j.n),
        E: goBig(j.e),
        D: goBig(j.d),
        Primes: [goBig(j.p), goBig(j.q)],
        Precomputed: { Dp: goBig(j.dp), Dq: goBig(j.dq), Qinv: goBig(j.qi), CRTValues: [] },
      };
    case 'ec':
      return { Curve: {}, X: goBig(j.x), Y: goBig(j.y), D: goBig(j.d) };
    case 'ed25519':
      return Buffer.concat([
        Buffer.from(j.d ?? '', 'base64url'),
        Buffer.from(j.x ?? '', 'base64url'),
      ]).toString('base64');
    default:
      return {};
  }
}

/** OPA's `jwk.New(key)` as JSON: RSA keys in full, ECDSA keys as their `kty` only (as OPA). */
export function opaJWK(key: PrivateKey): GoJSON {
  const j = key.jwk;
  switch (key.kind) {
    case 'rsa':
      return { kty: 'RSA', n: j.n!, e: j.e!, d: j.d!, p: j.p!, q: j.q!, dp: j.dp!, dq: j.dq!, qi: j.qi! };
    case 'ec':
      return { kty: 'EC' };
    case 'ed25519':
      throw new X509Error('invalid key type ed25519.PrivateKey');
    default:
      throw new X509Error('invalid key type *ecdh.PrivateKey');
  }
}
