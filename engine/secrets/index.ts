export { SecretError } from './errors.ts';
export { readFileKey } from './file-key.ts';
export { type Environment, type ReadTextFile, resolveSecret } from './resolve.ts';
export {
  type ClientProperties,
  type ResolvedSecrets,
  type ResolveOptions,
  resolveSecrets,
} from './resolve-config.ts';
