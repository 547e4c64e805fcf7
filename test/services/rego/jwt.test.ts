import * as assert from 'node:assert/strict';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { compile, RegoError, toJSON } from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { errorOf } from './helpers.ts';

const policy = compile({});

/** The JSON value of `x` in `query`'s first solution, evaluated with evalAsync. */
async function x(query: string, strictBuiltinErrors = false): Promise<unknown> {
  const [solution] = await policy.evalAsync(query, { strictBuiltinErrors });
  const v = solution?.get('x');
  return v === undefined ? undefined : toJSON(v);
}

const rsa = await generateKeyPair('RS256', { extractable: true });
const ec = await generateKeyPair('ES256', { extractable: true });
const otherEc = await generateKeyPair('ES256', { extractable: true });
const rsaPem = await exportSPKI(rsa.publicKey);
const ecJwk = JSON.stringify(await exportJWK(ec.publicKey));
const jwks = JSON.stringify({
  keys: [await exportJWK(rsa.publicKey), await exportJWK(otherEc.publicKey), await exportJWK(ec.publicKey)],
});
const secret = new TextEncoder().encode('secret');

const claims = { sub: '1', iss: 'me', aud: 'api' };
const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secret);
const rs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
const es256 = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey);
const expired = await new SignJWT({ ...claims, exp: 1000 }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
const notYet = await new SignJWT({ ...claims, nbf: 4_000_000_000 })
  .setProtectedHeader({ alg: 'HS256' })
  .sign(secret);

test('verify_* checks the signature with the secret or public key (PEM, JWK, JWK set)', async () => {
  assert.equal(await x(`x := io.jwt.verify_hs256("${hs256}", "secret")`), true);
  assert.equal(await x(`x := io.jwt.verify_hs256("${hs256}", "wrong")`), false);
  assert.equal(await x(`x := io.jwt.verify_rs256("${rs256}", ${JSON.stringify(rsaPem)})`), true);
  assert.equal(await x(`x := io.jwt.verify_rs256("${hs256}", ${JSON.stringify(rsaPem)})`), false);
  assert.equal(await x(`x := io.jwt.verify_es256("${es256}", ${JSON.stringify(ecJwk)})`), true);
  // A set: keys of another type are skipped, and another key of the same curve does not verify.
  assert.equal(await x(`x := io.jwt.verify_es256("${es256}", ${JSON.stringify(jwks)})`), true);
  assert.equal(await x(`x := io.jwt.verify_rs256("${rs256}", ${JSON.stringify(jwks)})`), true);
  const onlyOther = JSON.stringify({ keys: [await exportJWK(otherEc.publicKey)] });
  assert.equal(await x(`x := io.jwt.verify_es256("${es256}", ${JSON.stringify(onlyOther)})`), false);
  // The algorithm is the builtin's: an RS256 token does not pass verify_rs384.
  assert.equal(await x(`x := io.jwt.verify_rs384("${rs256}", ${JSON.stringify(rsaPem)})`), false);
});

test('verify_* errors: a malformed token or key is a builtin error (undefined unless strict)', async () => {
  assert.equal(await x('x := io.jwt.verify_hs256("not-a-token", "secret")'), undefined);
  await assert.rejects(x('x := io.jwt.verify_hs256("not-a-token", "secret")', true), (err: unknown) => {
    assert.ok(err instanceof RegoError);
    assert.equal(err.code, 'eval_builtin_error');
    assert.match(err.message, /encoded JWT had no period separators/);
    return true;
  });
  await assert.rejects(
    x(`x := io.jwt.verify_rs256("${rs256}", "not a key")`, true),
    /io\.jwt\.verify_rs256: failed to parse a JWK key \(set\)/,
  );
  await assert.rejects(
    x(`x := io.jwt.verify_es256("${es256}", "{not json")`, true),
    /failed to parse a JWK key/,
  );
  await assert.rejects(x('x := io.jwt.verify_hs256(1, "secret")', true), /operand 1 must be string/);
});

/** The message of the error `query` raises with strict builtin errors. */
async function failure(query: string): Promise<string> {
  try {
    await x(query, true);
  } catch (err) {
    if (err instanceof RegoError) return err.detail;
    throw err;
  }
  throw new Error(`no error: ${query}`);
}

const pem = (type: string, body: string) => `-----BEGIN ${type}-----\n${body}\n-----END ${type}-----\n`;

// OPA topdown/tokens.go getKeysFromCertOrJWK: which PEM block, and which part of it, is wrong.
test('key material errors: a bad PEM certificate, a bad public key, another block, extra data', async () => {
  const verify = (key: string) => failure(`x := io.jwt.verify_rs256("${rs256}", ${JSON.stringify(key)})`);
  assert.equal(
    await verify(pem('CERTIFICATE', 'MIIBAAAA')),
    'io.jwt.verify_rs256: failed to parse a PEM certificate: x509: malformed certificate',
  );
  assert.equal(
    await verify(pem('PUBLIC KEY', 'MIIBAAAA')),
    'io.jwt.verify_rs256: failed to parse a PEM public key: x509: malformed public key',
  );
  assert.equal(
    await verify(pem('RSA PRIVATE KEY', 'MIIBAAAA')),
    'io.jwt.verify_rs256: failed to extract a Key from the PEM certificate',
  );
  assert.equal(
    await verify(`${rsaPem.trimEnd()}\n\n`),
    'io.jwt.verify_rs256: extra data after a PEM certificate block',
  );
  // One line ending after the block is part of it; text before the block is skipped.
  assert.equal(await x(`x := io.jwt.verify_rs256("${rs256}", ${JSON.stringify(`key:\n${rsaPem}`)})`), true);
  assert.equal(await x(`x := io.jwt.verify_rs256("${rs256}", ${JSON.stringify(rsaPem.trimEnd())})`), true);
  // A good key of another type does not verify: false, not an error.
  assert.equal(await x(`x := io.jwt.verify_rs256("${rs256}", ${JSON.stringify(ecJwk)})`), false);
});

// OPA topdown/tokens.go parseTokenConstraints and validate.
test('decode_verify constraint errors name the constraint, before the token is read', async () => {
  const constrained = (constraints: string, token = hs256) =>
    failure(`x := io.jwt.decode_verify("${token}", ${constraints})`);
  assert.equal(await constrained('{}'), 'io.jwt.decode_verify: no key constraint');
  assert.equal(
    await constrained(`{"secret": "s", "cert": ${JSON.stringify(rsaPem)}}`),
    'io.jwt.decode_verify: duplicate key constraints',
  );
  assert.equal(
    await constrained('{"secret": "s", "nope": 1}'),
    'io.jwt.decode_verify: unknown token validation constraint: nope',
  );
  assert.equal(await constrained('{"cert": 1}'), 'io.jwt.decode_verify: cert constraint: must be a string');
  assert.equal(
    await constrained('{"secret": "s", "iss": 1}'),
    'io.jwt.decode_verify: iss constraint: must be a string',
  );
  assert.equal(
    await constrained('{"secret": "s", "time": "now"}'),
    'io.jwt.decode_verify: token time constraint: must be a number',
  );
  assert.equal(
    await constrained('{"secret": "s", "time": -1}'),
    'io.jwt.decode_verify: token time constraint: must not be negative',
  );
  assert.equal(
    await constrained(`{"cert": ${JSON.stringify(pem('CERTIFICATE', 'MIIBAAAA'))}}`, 'not-a-token'),
    'io.jwt.decode_verify: failed to parse a PEM certificate: x509: malformed certificate',
  );
  assert.equal(
    await constrained('{"secret": "secret"}', 'not-a-token'),
    'io.jwt.decode_verify: encoded JWT had no period separators',
  );
});

test('decode_verify checks the signature, then exp, nbf, iss and aud against the constraints', async () => {
  const verified = (jwt: string, constraints: string) =>
    x(`[x, _, _] := io.jwt.decode_verify("${jwt}", ${constraints})`);
  assert.equal(await verified(hs256, '{"secret": "secret", "iss": "me", "aud": "api"}'), true);
  assert.equal(await verified(hs256, '{"secret": "secret", "iss": "other", "aud": "api"}'), false);
  assert.equal(await verified(hs256, '{"secret": "secret", "iss": "me"}'), false); // aud in the token, none asked
  assert.equal(await verified(hs256, '{"secret": "wrong", "aud": "api"}'), false);
  assert.equal(await verified(rs256, `{"cert": ${JSON.stringify(rsaPem)}, "aud": "api"}`), true);
  assert.equal(await verified(hs256, `{"cert": ${JSON.stringify(rsaPem)}, "aud": "api"}`), false);
  assert.equal(
    await verified(rs256, `{"cert": ${JSON.stringify(rsaPem)}, "aud": "api", "alg": "RS512"}`),
    false,
  );
  assert.equal(await verified(expired, '{"secret": "secret", "aud": "api"}'), false);
  assert.equal(await verified(expired, '{"secret": "secret", "aud": "api", "time": 999000000000}'), true);
  assert.equal(await verified(notYet, '{"secret": "secret", "aud": "api"}'), false);
  const [, header, payload] = (await x(
    `x := io.jwt.decode_verify("${hs256}", {"secret": "secret", "aud": "api"})`,
  )) as unknown[];
  assert.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
  assert.deepEqual(payload, { aud: 'api', iss: 'me', sub: '1' });
});

test('verification is asynchronous: eval names the builtin and says to use evalAsync', () => {
  const err = errorOf(() => policy.eval(`x := io.jwt.verify_hs256("${hs256}", "secret")`));
  assert.equal(err.code, 'eval_builtin_error');
  assert.match(err.message, /io\.jwt\.verify_hs256 is an asynchronous builtin/);
  // Decoding alone stays synchronous.
  const [solution] = policy.eval(`[_, p, _] := io.jwt.decode("${hs256}"); x := p.sub`);
  assert.equal(solution?.get('x'), '1');
});

test.run();
