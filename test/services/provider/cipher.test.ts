import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  CredentialCipher,
  keyId,
  parseKeyList,
  type SealContext,
} from '../../../services/provider/cipher.ts';
import { test } from '../../support/suite.ts';

const context: SealContext = { tenantId: 'acme', providerId: 'gitlab', field: 'credentials' };
const secret = { type: 'token', content: { accessToken: 'S3CRET-token' } };
const oldKey = randomBytes(32);
const newKey = randomBytes(32);

test('seal then open gives the value back; the ciphertext does not contain it', () => {
  const cipher = new CredentialCipher([oldKey]);
  const sealed = cipher.seal(secret, context);
  assert.deepEqual(cipher.open(sealed, context), secret);
  assert.equal(sealed.keyId, keyId(oldKey));
  assert.ok(!JSON.stringify(sealed).includes('S3CRET'));
  assert.equal(Buffer.from(sealed.iv, 'base64').length, 12);
  assert.equal(Buffer.from(sealed.tag, 'base64').length, 16);
});

test('every seal has its own IV, so equal secrets give different ciphertexts', () => {
  const cipher = new CredentialCipher([oldKey]);
  const a = cipher.seal(secret, context);
  const b = cipher.seal(secret, context);
  assert.notEqual(a.iv, b.iv);
  assert.notEqual(a.data, b.data);
});

test('the tenant, provider and field are bound: another context does not open it', () => {
  const cipher = new CredentialCipher([oldKey]);
  const sealed = cipher.seal(secret, context);
  for (const other of [
    { ...context, tenantId: 'other' },
    { ...context, providerId: 'other' },
    { ...context, field: 'proxy.password' as const },
    // The associated data is a JSON array, so moving a character between the ids changes it.
    { ...context, tenantId: 'acmeg', providerId: 'itlab' },
  ]) {
    assert.throws(() => cipher.open(sealed, other), /authenticate/);
  }
});

test('a tampered ciphertext or tag does not open', () => {
  const cipher = new CredentialCipher([oldKey]);
  const sealed = cipher.seal(secret, context);
  const data = Buffer.from(sealed.data, 'base64');
  data[0]! ^= 1;
  assert.throws(() => cipher.open({ ...sealed, data: data.toString('base64') }, context), /authenticate/);
  const tag = Buffer.from(sealed.tag, 'base64');
  tag[0]! ^= 1;
  assert.throws(() => cipher.open({ ...sealed, tag: tag.toString('base64') }, context), /authenticate/);
});

test('rotation: the new key seals, old values still open, reseal moves them to the new key', () => {
  const before = new CredentialCipher([oldKey]).seal(secret, context);
  const rotating = new CredentialCipher([newKey, oldKey]);
  assert.equal(rotating.currentKeyId, keyId(newKey));
  assert.deepEqual(rotating.open(before, context), secret);
  const after = rotating.reseal(before, context);
  assert.equal(after.keyId, keyId(newKey));
  assert.equal(rotating.reseal(after, context), after, 'a value under the current key is left alone');
  const newOnly = new CredentialCipher([newKey]);
  assert.deepEqual(newOnly.open(after, context), secret);
  assert.throws(
    () => newOnly.open(before, context),
    new RegExp(`no encryption key with id ${keyId(oldKey)}`),
  );
});

test('keys must be 32 bytes, at least one', () => {
  assert.throws(() => new CredentialCipher([]), /at least one/);
  assert.throws(() => new CredentialCipher([randomBytes(16)]), /32 bytes/);
});

test('parseKeyList: commas or spaces, problems by position without the value', () => {
  const a = oldKey.toString('base64');
  const b = newKey.toString('base64');
  assert.deepEqual(parseKeyList(`${a}, ${b}`), { keys: [oldKey, newKey], problems: [] });
  assert.deepEqual(parseKeyList(` ${a}\n${b} `).problems, []);
  const short = randomBytes(16).toString('base64');
  const { problems } = parseKeyList(`${a},${short},not*base64`);
  assert.deepEqual(problems, [
    'key 2 of 3: expected 32 bytes in base64 (value hidden)',
    'key 3 of 3: expected 32 bytes in base64 (value hidden)',
  ]);
  assert.deepEqual(parseKeyList(' , ').problems, ['expected at least one base64 key of 32 bytes']);
  assert.deepEqual(parseKeyList(`${a},${a}`).problems, ['the same key is listed twice']);
});

test.run();
