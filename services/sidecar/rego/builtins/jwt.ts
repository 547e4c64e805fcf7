/**
 * `io.jwt.decode`, and `io.jwt.verify_*` and `io.jwt.decode_verify` with jose (HMAC, RSA PKCS#1
 * v1.5, RSA-PSS, ECDSA). Keys: PEM certificates or public keys, JWK or JWK sets. jose verifies
 * asynchronously, so the verifying builtins are asynchronous: `evalAsync` runs them.
 */
import { compactVerify, importJWK, importSPKI, importX509, type JWK } from 'jose';
import { asyncBuiltin } from '../async-calls.ts';
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

type Key = Awaited<ReturnType<typeof importJWK>>;

/** The keys to verify with: a secret for HMAC; a PEM (certificate or key), a JWK or a JWK set. */
async function keysFor(alg: string, material: string): Promise<Key[]> {
  if (alg.startsWith('HS')) return [new TextEncoder().encode(material)];
  const text = material.trim();
  if (!text.startsWith('{')) {
    try {
      return [text.includes('BEGIN CERTIFICATE') ? await importX509(text, alg) : await importSPKI(text, alg)];
    } catch {
      throw builtinError('failed to parse a PEM key');
    }
  }
  let jwk: { keys?: unknown[] };
  try {
    jwk = JSON.parse(text) as { keys?: unknown[] };
  } catch {
    throw builtinError('failed to parse a JWK key (set)');
  }
  const keys: Key[] = [];
  // In a set, keys of another type or curve than the algorithm's are skipped, as OPA does.
  for (const k of Array.isArray(jwk.keys) ? jwk.keys : [jwk]) {
    try {
      keys.push(await importJWK(k as JWK, alg));
    } catch {}
  }
  return keys;
}

/** Whether one of the keys verifies the token's signature with `alg` (jose checks the header's alg too). */
async function verifySignature(jwt: string, alg: string, material: string): Promise<boolean> {
  if (!ALGORITHMS.includes(alg)) return false;
  for (const key of await keysFor(alg, material)) {
    try {
      await compactVerify(jwt, key, { algorithms: [alg] });
      return true;
    } catch {}
  }
  return false;
}

const ALGORITHMS = ['HS', 'RS', 'PS', 'ES'].flatMap((f) => ['256', '384', '512'].map((b) => `${f}${b}`));

function verifier(alg: string) {
  return asyncBuiltin(2, async (args, name) => {
    const jwt = str(name, args, 0);
    parseToken(jwt);
    return verifySignature(jwt, alg, str(name, args, 1));
  });
}

async function decodeVerify(args: Value[], name: string, ctx: BuiltinContext): Promise<Value> {
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
  if (!(await verifySignature(jwt, token.alg, material))) return invalid;
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
  'io.jwt.decode_verify': asyncBuiltin(2, decodeVerify),
  ...Object.fromEntries(ALGORITHMS.map((alg) => [`io.jwt.verify_${alg.toLowerCase()}`, verifier(alg)])),
};
