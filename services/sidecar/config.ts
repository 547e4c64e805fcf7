import { z } from 'zod';
import { envBoolean, envInteger, envPort, parseEnv } from '../kit/index.ts';

const optional = z.string().trim().min(1).optional();

/** Rönd's environment variables (same names and defaults), parsed once at start-up. */
const schema = z
  .object({
    HTTP_PORT: envPort().default(8080),
    LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
    SERVICE_VERSION: optional,
    TARGET_SERVICE_HOST: z
      .string()
      .trim()
      .regex(/^[^/\s]+$/, { error: 'expected host:port' })
      .optional(),
    STANDALONE: envBoolean().default(false),
    PATH_PREFIX_STANDALONE: z.string().trim().startsWith('/').default('/eval'),
    OPA_MODULES_DIRECTORY: z.string().trim().min(1),
    API_PERMISSIONS_FILE_PATH: optional,
    TARGET_SERVICE_OAS_PATH: z.string().trim().startsWith('/').optional(),
    MANUAL_ROUTES_FILE_PATH: optional,
    USER_ID_HEADER_KEY: z.string().trim().min(1).default('miauserid'),
    USER_GROUPS_HEADER_KEY: z.string().trim().min(1).default('miausergroups'),
    USER_PROPERTIES_HEADER_KEY: z.string().trim().min(1).default('miauserproperties'),
    CLIENT_TYPE_HEADER_KEY: z.string().trim().min(1).default('client-type'),
    MONGODB_URL: optional,
    /** Rönd's: idle MongoDB connections are closed after this many ms. */
    MONGODB_CONNECTION_MAX_IDLE_TIME_MS: envInteger(0, 3_600_000).default(1000),
    ROLES_COLLECTION_NAME: optional,
    BINDINGS_COLLECTION_NAME: optional,
    DELAY_SHUTDOWN_SECONDS: envInteger(0, 3600).default(10),
    /** Rönd: `/-/rond/metrics` (and our `/-/rbac-metrics`) only when true. */
    EXPOSE_METRICS: envBoolean().default(true),
    /** Rönd's standalone `grant`/`revoke` routes write bindings through this CRUD service. */
    BINDINGS_CRUD_SERVICE_URL: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    /** Request headers passed on to the CRUD service (comma-separated), as Rönd. */
    ADDITIONAL_HEADERS_TO_PROXY: z.string().trim().default('miauserid'),
    /** Request bodies read for `input.request.body` beyond this answer 413. */
    MAX_REQUEST_BODY_BYTES: envInteger(1, 1 << 30).default(10 * 1024 * 1024),
    /** Upstream answers slower than this (headers) answer 504. */
    UPSTREAM_TIMEOUT_MS: envInteger(1, 3_600_000).default(30_000),
  })
  .superRefine((env, ctx) => {
    const need = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (!env.TARGET_SERVICE_HOST && !env.STANDALONE)
      need('TARGET_SERVICE_HOST', 'required unless STANDALONE=true');
    if (!env.API_PERMISSIONS_FILE_PATH && !env.TARGET_SERVICE_OAS_PATH && !env.MANUAL_ROUTES_FILE_PATH)
      need(
        'API_PERMISSIONS_FILE_PATH',
        'one of API_PERMISSIONS_FILE_PATH, TARGET_SERVICE_OAS_PATH or MANUAL_ROUTES_FILE_PATH is required',
      );
    if (env.TARGET_SERVICE_OAS_PATH && !env.API_PERMISSIONS_FILE_PATH && !env.TARGET_SERVICE_HOST)
      need('TARGET_SERVICE_HOST', 'required to fetch TARGET_SERVICE_OAS_PATH');
    if (env.MONGODB_URL && (!env.ROLES_COLLECTION_NAME || !env.BINDINGS_COLLECTION_NAME))
      need(
        env.ROLES_COLLECTION_NAME ? 'BINDINGS_COLLECTION_NAME' : 'ROLES_COLLECTION_NAME',
        'required when MONGODB_URL is set (as Rönd)',
      );
  });

export type SidecarConfig = z.output<typeof schema>;

/** Throws the kit's `EnvError` naming each bad or missing variable. */
export function readConfig(env: Readonly<Record<string, string | undefined>>): SidecarConfig {
  return parseEnv(schema, env);
}
