import { z } from 'zod';

export const OUTPUT_MODES = ['operation-forwarding', 'read-delete', 'key-only'] as const;

export const outputModeSchema = z.enum(OUTPUT_MODES);

export type OutputMode = z.output<typeof outputModeSchema>;
