import { z } from 'zod';
import { EnvError, envBoolean, envInteger, envPort, parseEnv } from '../kit/index.ts';

const optionalText = z.string().trim().min(1).optional();

/**
 * The environment of auth0-client 3.8, under its names, plus the Redis TLS variables of
 * design/platform.md (the reference's own TLS names are not public).
 */
export const authEnvSchema = z.object({
  HTTP_PORT: envPort().default(8080),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  SERVICE_CONFIG_PATH: z.string().trim().min(1),
  SERVICE_CONFIG_FILE_NAME: z.string().trim().min(1),
  SESSION_DURATION_SECONDS: envInteger(1, 31_536_000).default(86_400),
  SESSION_SCOPE: z.string().trim().min(1).default('website'),
  REDIS_MODE: z.enum(['normal', 'sentinel']).default('normal'),
  REDIS_HOSTS: z
    .string()
    .trim()
    .min(1)
    .transform((hosts, ctx) => parseHosts(hosts, ctx)),
  REDIS_MASTER_NAME: optionalText,
  REDIS_USERNAME: optionalText,
  REDIS_PASSWORD: optionalText,
  REDIS_TLS: envBoolean().default(false),
  REDIS_TLS_CA_CERT_PATH: optionalText,
  REDIS_TLS_CERT_PATH: optionalText,
  REDIS_TLS_KEY_PATH: optionalText,
  REDIS_TLS_SKIP_VERIFY: envBoolean().default(false),
  AUTH0_LOGOUT_CLIENT_ID_ENABLED: envBoolean().default(false),
  // The reference requires it; an unset header means "trust the connection" (https unless http).
  ORIGINAL_PROTOCOL_HEADER: z.string().trim().toLowerCase().default('x-forwarded-proto'),
  DELAY_SHUTDOWN_SECONDS: envInteger(0, 3600).default(10),
  /** The version the status routes report (Mia-Platform sets it on deploy); else the package's. */
  SERVICE_VERSION: optionalText,
});

export type AuthEnv = z.output<typeof authEnvSchema>;

export interface RedisHost {
  readonly host: string;
  readonly port: number;
}

const DEFAULT_REDIS_PORT = 6379;

/** `a,b:6380,[::1]:7000` → hosts with the default port where none is given. */
function parseHosts(list: string, ctx: z.RefinementCtx): RedisHost[] {
  const hosts: RedisHost[] = [];
  for (const entry of list.split(',').map((part) => part.trim())) {
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry);
    const port = match?.[3] === undefined ? DEFAULT_REDIS_PORT : Number(match[3]);
    if (!match || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', message: `expected host[:port] list, "${entry}" is not one` });
      return z.NEVER;
    }
    hosts.push({ host: (match[1] ?? match[2])!, port });
  }
  return hosts;
}

export function parseAuthEnv(env: Readonly<Record<string, string | undefined>>): AuthEnv {
  // Deployments template variables in and leave the unused ones empty: empty means not set.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = parseEnv(authEnvSchema, set);
  if (parsed.REDIS_MODE === 'sentinel' && parsed.REDIS_MASTER_NAME === undefined) {
    throw new EnvError(['REDIS_MASTER_NAME: required when REDIS_MODE is sentinel']);
  }
  return parsed;
}
