import { z } from 'zod';
import { brokerTypeSchema } from './scalars.ts';
import { secretSchema } from './secret.ts';

export const connectionConfigSchema = z.strictObject({
  type: brokerTypeSchema,
  config: z.record(z.string(), secretSchema).meta({
    description:
      'Broker client properties (e.g. bootstrap.servers), shared by every client of the connection.',
  }),
});

export const connectionsSchema = z.record(z.string(), connectionConfigSchema);

export type ConnectionConfig = z.output<typeof connectionConfigSchema>;
