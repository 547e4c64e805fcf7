import { z } from 'zod';
import { uint64Schema } from './scalars.ts';

export const controlPlaneConfigSchema = z.strictObject({
  grpcAddress: z.string().min(1),
  feedbackInterval: uint64Schema.default(3000),
  resumeAfterMs: uint64Schema.nullable().default(null),
});

export type ControlPlaneConfig = z.output<typeof controlPlaneConfigSchema>;
