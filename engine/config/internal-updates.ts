import { z } from 'zod';
import { brokerTypeSchema, uint64Schema } from './scalars.ts';
import { secretSchema } from './secret.ts';

/** The named field of the internal consumer; every other property is a client property. */
export const internalConsumerFields = {
  // 500 when the object is given without it; the whole object defaults to {commitIntervalMs: 0}.
  commitIntervalMs: uint64Schema.default(500),
};

export const internalConsumerConfigSchema = z.object(internalConsumerFields).catchall(secretSchema);

type InternalConsumerConfig = z.output<typeof internalConsumerConfigSchema>;

// The cast: zod types a catchall object with an index signature that the number field contradicts.
const defaultInternalConsumer = { commitIntervalMs: 0 } as InternalConsumerConfig;

export const internalUpdatesConfigSchema = z.strictObject({
  type: brokerTypeSchema,
  config: z.strictObject({
    topic: z.string().min(1),
    connectionName: z.string().min(1),
    compressionWindowMs: uint64Schema.default(250),
    consumer: internalConsumerConfigSchema.default(defaultInternalConsumer),
    producer: z.record(z.string(), secretSchema).default({}),
  }),
});

export type InternalUpdatesConfig = z.output<typeof internalUpdatesConfigSchema>;
