import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A secret at rest: AES-256-GCM ciphertext with its IV, tag and the id of the key that made it. */
export interface Sealed {
  readonly keyId: string;
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

/**
 * What a sealed value belongs to, bound to it as associated data: a ciphertext copied to another
 * tenant, provider or field does not decrypt.
 */
export interface SealContext {
  readonly tenantId: string;
  readonly providerId: string;
  readonly field: 'credentials' | 'proxy.password';
}

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;

/** A short public name of a key, stored next to each ciphertext so decryption picks the right key. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('streamfold provider key id\0').update(key).digest('hex').slice(0, 16);
}

const associatedData = ({ tenantId, providerId, field }: SealContext) =>
  Buffer.from(JSON.stringify([tenantId, providerId, field]), 'utf8');

/**
 * Encrypts JSON values with the first of `keys` and decrypts with any of them, so keys can be
 * rotated: add the new key first, run `--rotate-keys`, then drop the old one.
 */
export class CredentialCipher {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #currentId: string;

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('at least one encryption key is needed');
    for (const key of keys) {
      if (key.length !== KEY_BYTES) throw new Error(`an encryption key must be ${KEY_BYTES} bytes`);
    }
    this.#keys = new Map(keys.map((key) => [keyId(key), key]));
    this.#currentId = keyId(keys[0]!);
  }

  get currentKeyId(): string {
    return this.#currentId;
  }

  seal(value: unknown, context: SealContext): Sealed {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#keys.get(this.#currentId)!, iv);
    cipher.setAAD(associatedData(context));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return {
      keyId: this.#currentId,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  /** Throws when the key is unknown or the value was tampered with or sealed for another context. */
  open(sealed: Sealed, context: SealContext): unknown {
    const key = this.#keys.get(sealed.keyId);
    if (!key) throw new Error(`no encryption key with id ${sealed.keyId} is configured`);
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(associatedData(context));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8'));
  }

  /** The value sealed again with the current key (a new IV), or the same object when it already is. */
  reseal(sealed: Sealed, context: SealContext): Sealed {
    return sealed.keyId === this.#currentId ? sealed : this.seal(this.open(sealed, context), context);
  }
}

/**
 * Keys from `PROVIDERS_ENCRYPTION_KEY`: base64 keys of 32 bytes separated by commas or spaces,
 * the first one current. Problems name the key's position, never its value.
 */
export function parseKeyList(text: string): { keys: Buffer[]; problems: string[] } {
  const items = text.split(/[\s,]+/).filter(Boolean);
  const problems: string[] = [];
  const keys = items.map((item, index) => {
    const key = Buffer.from(item, 'base64');
    const canonical = /^[A-Za-z0-9+/]+={0,2}$/.test(item);
    if (!canonical || key.length !== KEY_BYTES) {
      problems.push(
        `key ${index + 1} of ${items.length}: expected ${KEY_BYTES} bytes in base64 (value hidden)`,
      );
    }
    return key;
  });
  if (items.length === 0) problems.push('expected at least one base64 key of 32 bytes');
  if (new Set(keys.map(keyId)).size !== keys.length) problems.push('the same key is listed twice');
  return { keys, problems };
}
