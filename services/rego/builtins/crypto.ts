/** Hashes and HMACs (node:crypto); `crypto.hmac.equal` compares in constant time. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type BuiltinTable, str } from './types.ts';

const hash = (algorithm: string) => ({
  arity: 1,
  fn: (args: Parameters<BuiltinTable[string]['fn']>[0], name: string) =>
    createHash(algorithm)
      .update(str(name, args, 0))
      .digest('hex'),
});
const hmac = (algorithm: string) => ({
  arity: 2,
  fn: (args: Parameters<BuiltinTable[string]['fn']>[0], name: string) =>
    createHmac(algorithm, str(name, args, 1))
      .update(str(name, args, 0))
      .digest('hex'),
});

export const crypto: BuiltinTable = {
  'crypto.md5': hash('md5'),
  'crypto.sha1': hash('sha1'),
  'crypto.sha256': hash('sha256'),
  'crypto.hmac.md5': hmac('md5'),
  'crypto.hmac.sha1': hmac('sha1'),
  'crypto.hmac.sha256': hmac('sha256'),
  'crypto.hmac.sha512': hmac('sha512'),
  'crypto.hmac.equal': {
    arity: 2,
    fn: (args, name) => {
      const a = Buffer.from(str(name, args, 0));
      const b = Buffer.from(str(name, args, 1));
      return a.length === b.length && timingSafeEqual(a, b);
    },
  },
};
