import { z } from 'zod';
import { aggregationGraphSchema } from './graph.ts';
import { internalUpdatesConfigSchema } from './internal-updates.ts';
import { outputModeSchema } from './output-mode.ts';
import { persistenceConfigSchema } from './persistence.ts';

export const aggregationConfigSchema = z.strictObject({
  graph: aggregationGraphSchema,
  persistence: persistenceConfigSchema,
  internalUpdates: internalUpdatesConfigSchema,
  mode: outputModeSchema.default('read-delete'),
});

export type AggregationConfig = z.output<typeof aggregationConfigSchema>;
