/** Public keys and signature algorithms of certificates, as Go's x509 reads them (numbers and JSON). */
import { createPublicKey } from 'node:crypto';
import * as asn1js from 'asn1js';
import { b64, bigFromBytes, type GoJSON, goInt, oidOf, signedBig, X509Error } from './x509-common.ts';

// Go's x509.SignatureAlgorithm numbers, by signature OID.
const SIGNATURE_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1, // MD2WithRSA
  '1.2.840.113549.1.1.4': 2, // MD5WithRSA
  '1.2.840.113549.1.1.5': 3, // SHA1WithRSA
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4, // SHA256WithRSA
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7, // DSAWithSHA1
  '2.16.840.1.101.3.4.3.2': 8, // DSAWithSHA256
  '1.2.840.10045.4.1': 9, // ECDSAWithSHA1
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16, // PureEd25519
};
const RSA_PSS = '1.2.840.113549.1.1.10';
const PSS_HASHES: Record<string, [number, number]> = {
  '2.16.840.1.101.3.4.2.1': [13, 32], // SHA256WithRSAPSS, salt length
  '2.16.840.1.101.3.4.2.2': [14, 48],
  '2.16.840.1.101.3.4.2.3': [15, 64],
};

/** Go's signature algorithm number; RSA-PSS by its hash, MGF1 hash and salt length, as Go. */
export function signatureAlgorithm(oid: string, params: ArrayBuffer | null | undefined): number {
  if (oid !== RSA_PSS) return SIGNATURE_ALGORITHMS[oid] ?? 0;
  if (!params) return 0;
  const seq = asn1js.fromBER(params).result;
  if (!(seq instanceof asn1js.Sequence)) return 0;
  let hash = '';
  let mgfHash = '';
  let salt = 20;
  for (const field of seq.valueBlock.value) {
    const inner = (field as asn1js.Constructed).valueBlock.value?.[0];
    if (!inner) continue;
    const tag = field.idBlock.tagNumber;
    if (tag === 0) hash = oidOf((inner as asn1js.Sequence).valueBlock.value[0]);
    else if (tag === 1) {
      const params = (inner as asn1js.Sequence).valueBlock.value[1] as asn1js.Sequence | undefined;
      mgfHash = params ? oidOf(params.valueBlock.value[0]) : '';
    } else if (tag === 2 && inner instanceof asn1js.Integer) salt = inner.valueBlock.valueDec;
  }
  const known = PSS_HASHES[hash];
  return known && mgfHash === hash && salt === known[1] ? known[0] : 0;
}

// Go's x509.PublicKeyAlgorithm numbers.
export const PUBLIC_KEY_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.1': 1, // RSA
  '1.2.840.10040.4.1': 2, // DSA
  '1.2.840.10045.2.1': 3, // ECDSA
  '1.3.101.112': 4, // Ed25519
};
const CURVES: Record<string, number> = {
  '1.3.132.0.33': 28, // P-224: coordinate size in bytes
  '1.2.840.10045.3.1.7': 32,
  '1.3.132.0.34': 48,
  '1.3.132.0.35': 66,
};

function integers(der: ArrayBuffer | Uint8Array, what: string): Uint8Array[] {
  const seq = asn1js.fromBER(der instanceof Uint8Array ? Uint8Array.from(der) : der);
  if (seq.offset === -1 || !(seq.result instanceof asn1js.Sequence)) throw new X509Error(what);
  return seq.result.valueBlock.value.map((v) => {
    if (!(v instanceof asn1js.Integer)) throw new X509Error(what);
    return v.valueBlock.valueHexView;
  });
}

/** Go's parsed public key as JSON: RSA {N, E}, ECDSA {Curve, X, Y}, Ed25519 bytes, DSA. */
export function publicKeyJSON(
  algorithm: number,
  spkiRaw: Uint8Array,
  params: ArrayBuffer | null | undefined,
  key: Uint8Array,
): GoJSON {
  switch (algorithm) {
    case 1: {
      const [n, e] = integers(key, 'x509: invalid RSA public key');
      if (!n || !e) throw new X509Error('x509: invalid RSA public key');
      if (signedBig(n) <= 0n) throw new X509Error('x509: RSA modulus is not a positive number');
      if (signedBig(e) <= 0n) throw new X509Error('x509: RSA public exponent is not a positive number');
      return { N: goInt(bigFromBytes(n)), E: goInt(bigFromBytes(e)) };
    }
    case 3: {
      const curve = params ? oidOf(asn1js.fromBER(params).result) : '';
      const size = CURVES[curve];
      if (!size) throw new X509Error('x509: unsupported elliptic curve');
      if (key.length !== 1 + 2 * size || key[0] !== 4)
        throw new X509Error('x509: failed to unmarshal elliptic curve point');
      try {
        createPublicKey({ key: Buffer.from(spkiRaw), format: 'der', type: 'spki' });
      } catch {
        throw new X509Error('x509: failed to unmarshal elliptic curve point');
      }
      return {
        Curve: {},
        X: goInt(bigFromBytes(key.subarray(1, 1 + size))),
        Y: goInt(bigFromBytes(key.subarray(1 + size))),
      };
    }
    case 4:
      if (key.length !== 32) throw new X509Error('x509: wrong Ed25519 public key size');
      return b64(key);
    case 2: {
      const [p, q, g] = params ? integers(params, 'x509: invalid DSA parameters') : [];
      const y = asn1js.fromBER(Uint8Array.from(key)).result;
      if (!p || !q || !g || !(y instanceof asn1js.Integer))
        throw new X509Error('x509: invalid DSA public key');
      return {
        Parameters: { P: goInt(bigFromBytes(p)), Q: goInt(bigFromBytes(q)), G: goInt(bigFromBytes(g)) },
        Y: goInt(bigFromBytes(y.valueBlock.valueHexView)),
      };
    }
    default:
      return null;
  }
}
