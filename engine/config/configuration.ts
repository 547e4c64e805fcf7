import { z } from 'zod';
import { aggregationConfigSchema } from './aggregation.ts';
import { connectionsSchema } from './connection.ts';
import { consumersConfigSchema } from './consumers.ts';
import { controlPlaneConfigSchema } from './control-plane.ts';
import { producerConfigSchema } from './producer.ts';
import { serverSettingsSchema } from './server.ts';

export const CONFIG_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

export const configurationSchema = z
  .strictObject({
    id: z.string().min(8).max(16).regex(CONFIG_ID_PATTERN).meta({
      description: 'Names the deployment; part of the persistence collection names.',
    }),
    consumers: consumersConfigSchema,
    producer: producerConfigSchema,
    connections: connectionsSchema,
    processor: aggregationConfigSchema,
    controlPlane: controlPlaneConfigSchema.nullable().optional(),
    // prefault: an absent `server` is parsed as {} so each field gets its own default.
    server: serverSettingsSchema.prefault({}),
  })
  .meta({ title: 'streamfold configuration' });
