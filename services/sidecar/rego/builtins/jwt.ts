/**
 * `io.jwt.decode`, `io.jwt.verify_*` and `io.jwt.decode_verify` with node:crypto (HMAC, RSA
 * PKCS#1 v1.5, RSA-PSS, ECDSA). Keys: PEM certificates or public keys, JWK or JWK sets.
 */
import { createHmac, createPublicKey, type KeyObject, timingSafeEqual, verify } from 'node:crypto';
import { builtinError } from '../errors.ts';
import { fromJSON, RegoObject, typeName, type Value } from '../values.ts';
import { type BuiltinContext, type BuiltinTable, obj, str } from './types.ts';

interface Token {
  header: Value;
  payload: Value;
  signature: Buffer;
  signed: string;
  alg: string;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function b64(part: string, what: string): Buffer {
  const bad = [...part].findIndex((c) => !/[A-Za-z0-9_=-]/.test(c));
  if (bad >= 0)
    throw builtinError(`JWT ${what} had invalid encoding: illegal base64 data at input byte ${bad}`);
  return Buffer.from(part, 'base64url');
}

function parseToken(jwt: string): Token {
  const parts = jwt.split('.');
  if (parts.length === 5) throw builtinError('JWT is a JWE object, which is not supported');
  if (parts.length !== 3) throw builtinError('encoded JWT had no period separators');
  const [h, p, s] = parts as [string, string, string];
  const header = parseJSON(b64(h, 'header'), 'header');
  if (header instanceof RegoObject && header.has('enc'))
    throw builtinError('JWT is a JWE object, which is not supported');
  const payload = parseJSON(b64(p, 'payload'), 'payload');
  if (!B64URL.test(s.replace(/=+$/, ''))) throw builtinError('JWT signature had invalid encoding');
  const alg = header instanceof RegoObject ? header.get('alg') : undefined;
  return {
    header,
    payload,
    signature: Buffer.from(s, 'base64url'),
    signed: `${h}.${p}`,
    alg: typeof alg === 'string' ? alg : '',
  };
}

function parseJSON(buf: Buffer, what: string): Value {
  try {
    return fromJSON(JSON.parse(buf.toString('utf8')));
  } catch {
    throw builtinError(`JWT ${what} had invalid encoding`);
  }
}

/** Public keys from a PEM (certificate or key), a JWK or a JWK set. */
function publicKeys(material: string): KeyObject[] {
  const text = material.trim();
  try {
    if (text.startsWith('{')) {
      const jwk = JSON.parse(text) as { keys?: object[] };
      const list = Array.isArray(jwk.keys) ? jwk.keys : [jwk];
      return list.flatMap((k) => {
        try {
          return [createPublicKey({ key: k as never, format: 'jwk' })];
        } catch {
          return [];
        }
      });
    }
    return [createPublicKey(text)];
  } catch {
    throw builtinError('failed to parse a JWK key (set)');
  }
}

const HASHES: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

function verifySignature(token: Token, alg: string, keyMaterial: string): boolean {
  const family = alg.slice(0, 2);
  const hash = HASHES[alg.slice(2)];
  if (!hash) return false;
  const data = Buffer.from(token.signed);
  if (family === 'HS') {
    const mac = createHmac(hash, keyMaterial).update(data).digest();
    return mac.length === token.signature.length && timingSafeEqual(mac, token.signature);
  }
  return publicKeys(keyMaterial).some((key) => {
    try {
      if (family === 'RS') return verify(hash, data, key, token.signature);
      if (family === 'PS') return verify(hash, data, { key, padding: 6, saltLength: -2 }, token.signature);
      if (family === 'ES') return verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, token.signature);
    } catch {
      return false;
    }
    return false;
  });
}

function verifier(alg: string) {
  return {
    arity: 2,
    fn: (args: Value[], name: string) => {
      const token = parseToken(str(name, args, 0));
      return verifySignature(token, alg, str(name, args, 1));
    },
  };
}

function decodeVerify(args: Value[], name: string, ctx: BuiltinContext): Value {
  const jwt = str(name, args, 0);
  const constraints = obj(name, args, 1);
  const invalid: Value = [false, new RegoObject(), new RegoObject()];
  const token = parseToken(jwt);
  const alg = constraints.get('alg');
  if (typeof alg === 'string' && alg !== token.alg) return invalid;
  const cert = constraints.get('cert');
  const secret = constraints.get('secret');
  const material = typeof cert === 'string' ? cert : typeof secret === 'string' ? secret : undefined;
  if (material === undefined) throw builtinError(`${name}: no key or secret provided`);
  if (typeof cert === 'string' && token.alg.startsWith('HS')) return invalid;
  if (!verifySignature(token, token.alg, material)) return invalid;
  const payload = token.payload instanceof RegoObject ? token.payload : new RegoObject();
  const timeNs = constraints.get('time');
  const nowSeconds = (typeName(timeNs ?? null) === 'number' ? Number(timeNs) : ctx.nowNs) / 1e9;
  const exp = payload.get('exp');
  if (typeof exp === 'number' && nowSeconds >= exp) return invalid;
  const nbf = payload.get('nbf');
  if (typeof nbf === 'number' && nowSeconds < nbf) return invalid;
  const iss = constraints.get('iss');
  if (iss !== undefined && payload.get('iss') !== iss) return invalid;
  const aud = constraints.get('aud');
  const tokenAud = payload.get('aud');
  if (
    aud === undefined
      ? tokenAud !== undefined
      : !(tokenAud === aud || (Array.isArray(tokenAud) && tokenAud.includes(aud)))
  )
    return invalid;
  return [true, token.header, token.payload];
}

export const jwt: BuiltinTable = {
  'io.jwt.decode': {
    arity: 1,
    fn: (args, name) => {
      const token = parseToken(str(name, args, 0));
      return [token.header, token.payload, token.signature.toString('hex')];
    },
  },
  'io.jwt.decode_verify': { arity: 2, fn: decodeVerify },
  ...Object.fromEntries(
    ['HS', 'RS', 'PS', 'ES'].flatMap((f) =>
      ['256', '384', '512'].map((b) => [`io.jwt.verify_${f.toLowerCase()}${b}`, verifier(`${f}${b}`)]),
    ),
  ),
};
