import type { z } from 'zod';
import type { GenericFilter } from '../filter/ast.ts';
import { configurationSchema } from './configuration.ts';

export { ConfigError, type ConfigIssue } from './errors.ts';
export { type LoadedConfig, loadConfig, parseConfig } from './load.ts';

export const configSchema = configurationSchema;

/** A validated configuration with every default applied. */
export type Config = z.output<typeof configSchema>;

/** The filter of an edge; the constraint fails to compile if it is not a `GenericFilter`. */
export type EdgeFilter<F extends GenericFilter = Config['processor']['graph']['edges'][number]['filter']> = F;
