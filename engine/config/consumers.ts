import { z } from 'zod';
import { brokerTypeSchema, uint64Schema } from './scalars.ts';
import { secretSchema } from './secret.ts';

/** The named fields of a consumer; every other property is a client property (a Secret). */
export const brokerConsumerFields = {
  topic: z.string().min(1),
  connectionName: z.string().min(1),
  commitIntervalMs: uint64Schema.default(500),
};

export const brokerConsumerConfigSchema = z.object(brokerConsumerFields).catchall(secretSchema);

export const consumersConfigSchema = z.strictObject({
  type: brokerTypeSchema,
  config: z.record(z.string(), brokerConsumerConfigSchema).meta({
    description: 'Consumer name -> consumer; each name is also the id of a graph node.',
  }),
});

export type BrokerConsumerConfig = z.output<typeof brokerConsumerConfigSchema>;
export type ConsumersConfig = z.output<typeof consumersConfigSchema>;
