/**
 * `io.jwt.decode`, and `io.jwt.verify_*` and `io.jwt.decode_verify` with jose (HMAC, RSA PKCS#1
 * v1.5, RSA-PSS, ECDSA). Keys: PEM certificates or public keys, JWK or JWK sets. jose verifies
 * asynchronously, so the verifying builtins are asynchronous: `evalAsync` runs them.
 */
import { createPublicKey, type JsonWebKey, type KeyObject, X509Certificate } from 'node:crypto';
import { compactVerify } from 'jose';
import { asyncBuiltin } from '../async-calls.ts';
import { BuiltinError, builtinError } from '../errors.ts';
import { formatValue, fromJSON, RegoObject, typeName, type Value } from '../values.ts';
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

type Key = KeyObject | Uint8Array;

/** One PEM block: its type and base64 body; the line ending after `-----END …-----` belongs to it. */
const PEM_BLOCK = /-----BEGIN ([^\r\n]*?)-----[ \t]*\r?\n([\s\S]*?)-----END \1-----[ \t]*(?:\r?\n)?/;

/**
 * The public keys of `material`, read as OPA's getKeysFromCertOrJWK does: one PEM block, a
 * CERTIFICATE or a PUBLIC KEY and nothing after it, else a JWK or JWK set. Its errors are OPA's
 * texts; the reasons after a colon are Go's usual ones, not the parser's own words.
 */
function publicKeys(material: string): KeyObject[] {
  const pem = PEM_BLOCK.exec(material);
  if (pem) {
    if (pem.index + pem[0].length < material.length)
      throw builtinError('extra data after a PEM certificate block');
    const der = Buffer.from(pem[2]!.replace(/\s+/g, ''), 'base64');
    if (pem[1] === 'CERTIFICATE') {
      try {
        return [new X509Certificate(der).publicKey];
      } catch {
        throw builtinError('failed to parse a PEM certificate: x509: malformed certificate');
      }
    }
    if (pem[1] === 'PUBLIC KEY') {
      try {
        return [createPublicKey({ key: der, format: 'der', type: 'spki' })];
      } catch {
        throw builtinError('failed to parse a PEM public key: x509: malformed public key');
      }
    }
    throw builtinError('failed to extract a Key from the PEM certificate');
  }
  let jwk: { keys?: unknown[] };
  try {
    jwk = JSON.parse(material) as { keys?: unknown[] };
  } catch (err) {
    throw builtinError(`failed to parse a JWK key (set): ${(err as Error).message}`);
  }
  const keys: KeyObject[] = [];
  // Keys that are no public key (or that Node cannot read) verify nothing: skipped.
  for (const k of Array.isArray(jwk.keys) ? jwk.keys : [jwk]) {
    try {
      keys.push(createPublicKey({ key: k as JsonWebKey, format: 'jwk' }));
    } catch {}
  }
  return keys;
}

/** Whether one of the keys verifies the token's signature with `alg` (jose checks the header's alg too). */
async function verifySignature(jwt: string, alg: string, keys: Key[]): Promise<boolean> {
  if (!ALGORITHMS.includes(alg)) return false;
  // A key of another type or curve than the algorithm's does not verify (jose refuses it).
  for (const key of keys) {
    try {
      await compactVerify(jwt, key, { algorithms: [alg] });
      return true;
    } catch {}
  }
  return false;
}

const ALGORITHMS = ['HS', 'RS', 'PS', 'ES'].flatMap((f) => ['256', '384', '512'].map((b) => `${f}${b}`));

/** OPA names the builtin before the reason of each of its errors. */
function withName(name: string, err: unknown): unknown {
  return err instanceof BuiltinError && !err.detail.startsWith(`${name}: `)
    ? new BuiltinError(err.code, `${name}: ${err.detail}`)
    : err;
}

function named<T>(name: string, run: () => Promise<T>): Promise<T> {
  return Promise.resolve()
    .then(run)
    .catch((err) => {
      throw withName(name, err);
    });
}

function verifier(alg: string) {
  return asyncBuiltin(2, (args, name) =>
    named(name, async () => {
      const jwt = str(name, args, 0);
      parseToken(jwt);
      const material = str(name, args, 1);
      const keys = alg.startsWith('HS') ? [new TextEncoder().encode(material)] : publicKeys(material);
      return verifySignature(jwt, alg, keys);
    }),
  );
}

interface Constraints {
  keys?: KeyObject[];
  secret?: string;
  alg?: string;
  iss?: string;
  aud?: string;
  timeNs?: number;
}

const STRING_CONSTRAINTS = ['secret', 'alg', 'iss', 'aud'] as const;

/** The constraints object of `decode_verify`, checked as OPA's parseTokenConstraints does. */
function constraintsOf(given: RegoObject): Constraints {
  const c: Constraints = {};
  for (const [key, v] of given.sortedPairs()) {
    if (key === 'cert') {
      if (typeof v !== 'string') throw builtinError('cert constraint: must be a string');
      c.keys = publicKeys(v);
    } else if (key === 'time') {
      if (typeName(v) !== 'number') throw builtinError('token time constraint: must be a number');
      if (Number(v) < 0) throw builtinError('token time constraint: must not be negative');
      c.timeNs = Number(v);
    } else if (STRING_CONSTRAINTS.includes(key as (typeof STRING_CONSTRAINTS)[number])) {
      if (typeof v !== 'string') throw builtinError(`${key} constraint: must be a string`);
      c[key as (typeof STRING_CONSTRAINTS)[number]] = v;
    } else {
      const shown = typeof key === 'string' ? key : formatValue(key);
      throw builtinError(`unknown token validation constraint: ${shown}`);
    }
  }
  const keyConstraints = (c.keys ? 1 : 0) + (c.secret ? 1 : 0);
  if (keyConstraints > 1) throw builtinError('duplicate key constraints');
  if (keyConstraints < 1) throw builtinError('no key constraint');
  return c;
}

async function decodeVerify(args: Value[], name: string, ctx: BuiltinContext): Promise<Value> {
  const c = constraintsOf(obj(name, args, 1));
  const jwt = str(name, args, 0);
  const invalid: Value = [false, new RegoObject(), new RegoObject()];
  const token = parseToken(jwt);
  if (c.alg !== undefined && c.alg !== token.alg) return invalid;
  // Public keys are the only ones trusted when given: an HMAC token never passes with them.
  const keys = c.keys ?? [new TextEncoder().encode(c.secret)];
  if (c.keys && token.alg.startsWith('HS')) return invalid;
  if (!(await verifySignature(jwt, token.alg, keys))) return invalid;
  const payload = token.payload instanceof RegoObject ? token.payload : new RegoObject();
  const nowSeconds = (c.timeNs ?? ctx.nowNs) / 1e9;
  const exp = payload.get('exp');
  if (typeof exp === 'number' && nowSeconds >= exp) return invalid;
  const nbf = payload.get('nbf');
  if (typeof nbf === 'number' && nowSeconds < nbf) return invalid;
  if (c.iss !== undefined && payload.get('iss') !== c.iss) return invalid;
  const tokenAud = payload.get('aud');
  if (
    c.aud === undefined
      ? tokenAud !== undefined
      : !(tokenAud === c.aud || (Array.isArray(tokenAud) && tokenAud.includes(c.aud)))
  )
    return invalid;
  return [true, token.header, token.payload];
}

export const jwt: BuiltinTable = {
  'io.jwt.decode': {
    arity: 1,
    fn: (args, name) => {
      try {
        const token = parseToken(str(name, args, 0));
        return [token.header, token.payload, token.signature.toString('hex')];
      } catch (err) {
        throw withName(name, err);
      }
    },
  },
  'io.jwt.decode_verify': asyncBuiltin(2, (args, name, ctx) =>
    named(name, () => decodeVerify(args, name, ctx)),
  ),
  ...Object.fromEntries(ALGORITHMS.map((alg) => [`io.jwt.verify_${alg.toLowerCase()}`, verifier(alg)])),
};
