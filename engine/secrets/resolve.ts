import { readFile as readFileFromDisk } from 'node:fs/promises';
import { fieldOf } from '../../operators/record/json.ts';
import type { Secret } from '../config/secret.ts';
import { SecretError } from './errors.ts';
import { readFileKey } from './file-key.ts';

export type Environment = Readonly<Record<string, string | undefined>>;
export type ReadTextFile = (path: string) => Promise<string>;

const readTextFile: ReadTextFile = (path) => readFileFromDisk(path, 'utf8');

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function decodeBase64(text: string, path: string): string {
  const compact = text.replace(/\s+/g, '');
  if (!BASE64.test(compact)) throw new SecretError(path, 'is not valid base64');
  return Buffer.from(compact, 'base64').toString('utf8');
}

function nonEmpty(value: string, path: string, what: string): string {
  if (value === '') throw new SecretError(path, `${what} is empty`);
  return value;
}

async function readSecretFile(file: string, path: string, readFile: ReadTextFile): Promise<string> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`;
    throw new SecretError(path, `file ${file} ${reason}`);
  }
}

/** The whole file without its final line break (editors add one; secrets rarely end with one). */
function withoutFinalLineBreak(content: string): string {
  return content.replace(/\r?\n$/, '');
}

/**
 * The value of one Secret. `path` is its config path, used in errors. A missing or empty
 * variable, file or key is an error, never an empty string.
 */
export async function resolveSecret(
  secret: Secret,
  path: string,
  env: Environment = process.env,
  readFile: ReadTextFile = readTextFile,
): Promise<string> {
  if (typeof secret === 'string') return secret;
  let raw: string;
  if (secret.type === 'env') {
    const value = fieldOf(env, secret.key);
    if (value === undefined) throw new SecretError(path, `environment variable ${secret.key} is not set`);
    raw = nonEmpty(value, path, `environment variable ${secret.key}`);
  } else {
    const content = await readSecretFile(secret.path, path, readFile);
    if (secret.key === undefined) {
      raw = nonEmpty(withoutFinalLineBreak(content), path, `file ${secret.path}`);
    } else {
      let value: string | undefined;
      try {
        value = readFileKey(content, secret.key);
      } catch (error) {
        throw new SecretError(path, `file ${secret.path} ${(error as Error).message}`);
      }
      if (value === undefined) throw new SecretError(path, `file ${secret.path} has no key ${secret.key}`);
      raw = nonEmpty(value, path, `key ${secret.key} of file ${secret.path}`);
    }
  }
  return secret.encoding === 'base64' ? nonEmpty(decodeBase64(raw, path), path, 'decoded value') : raw;
}
