import { z } from 'zod';
import { genericFilterSchema } from './filter.ts';

export const edgeSchema = z.strictObject({
  id: z.string().min(1),
  filter: genericFilterSchema.default(true),
});

export const nodeSchema = z.strictObject({
  id: z.string().min(1).meta({ description: 'Also the name of the consumer of this node.' }),
  edges: z.strictObject({
    in: z
      .array(z.string())
      .meta({ description: 'Edges from the parents; all are needed to reach the node.' }),
    out: z.array(z.string()).meta({ description: 'Edges to the children.' }),
  }),
});

export const aggregationGraphSchema = z.strictObject({
  edges: z.array(edgeSchema),
  nodes: z.array(nodeSchema),
});

export type EdgeConfig = z.output<typeof edgeSchema>;
export type NodeConfig = z.output<typeof nodeSchema>;
export type AggregationGraphConfig = z.output<typeof aggregationGraphSchema>;
