import { z } from 'zod';
import { docdbTypeSchema } from './scalars.ts';
import { secretSchema } from './secret.ts';

export const persistenceConfigSchema = z.strictObject({
  type: docdbTypeSchema,
  config: z.strictObject({
    url: secretSchema,
    database: z.string().min(1).nullable().optional(),
    appName: z.string().min(1).nullable().optional(),
  }),
});

export type PersistenceConfig = z.output<typeof persistenceConfigSchema>;
