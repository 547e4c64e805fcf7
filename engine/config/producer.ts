import { z } from 'zod';
import { brokerTypeSchema } from './scalars.ts';
import { secretSchema } from './secret.ts';

/** The named fields of the output producer; every other property is a client property. */
export const brokerProducerFields = {
  connectionName: z.string().min(1),
  topic: z.string().min(1),
};

export const brokerProducerConfigSchema = z.object(brokerProducerFields).catchall(secretSchema);

export const producerConfigSchema = z.strictObject({
  type: brokerTypeSchema,
  config: brokerProducerConfigSchema,
});

export type ProducerConfig = z.output<typeof producerConfigSchema>;
