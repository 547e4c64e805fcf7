import { z } from 'zod';
import { uint16Schema } from './scalars.ts';

export const API_PREFIX_PATTERN = /^\/(?:[a-zA-Z0-9._~-]+(?:\/[a-zA-Z0-9._~-]+)*)?$/;

export const serverSettingsSchema = z.strictObject({
  ip: z.ipv4().default('0.0.0.0'),
  port: uint16Schema.default(3000),
  apiPrefix: z.string().regex(API_PREFIX_PATTERN).default('/'),
});

export type ServerSettings = z.output<typeof serverSettingsSchema>;
