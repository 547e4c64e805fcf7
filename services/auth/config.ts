import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const text = z.string().min(1);
const names = z.array(text);
// The reference's own example writes `"defaultConnection": ""` for "none".
const optionalName = z.string().optional();

const clientSchema = z
  .strictObject({
    auth0Url: z.url({ protocol: /^https?$/ }),
    clientId: text,
    clientSecret: text,
    redirectUrl: z.url({ protocol: /^https?$/ }),
    scopes: names,
    audience: z.string().optional(),
    supportedSigningAlgs: names.optional(),
    supportedConnections: names.optional(),
    defaultConnection: optionalName,
    sameSite: z.enum(['Lax', 'None', 'Strict']).optional(),
    authorizeStateRequired: z.boolean().optional(),
  })
  .superRefine((client, ctx) => {
    if (client.defaultConnection && !client.supportedConnections?.includes(client.defaultConnection)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultConnection'],
        message: 'must be one of supportedConnections',
      });
    }
  });

const managementClientSchema = z
  .strictObject({
    auth0Url: z.url({ protocol: /^https?$/ }),
    clientId: text,
    clientSecret: text,
    /** Deprecated by the reference in favour of `supportedConnectionsMap`. */
    supportedConnections: names.optional(),
    /** Deprecated by the reference in favour of `defaultManagementConnectionName`. */
    defaultCreateUserConnection: optionalName,
    defaultManagementConnectionName: optionalName,
    supportedConnectionsMap: z.record(text, z.object({ connectionId: text })).optional(),
  })
  .superRefine((management, ctx) => {
    const deprecated =
      management.supportedConnections !== undefined || !!management.defaultCreateUserConnection;
    const current =
      management.supportedConnectionsMap !== undefined || !!management.defaultManagementConnectionName;
    if (deprecated && current) {
      ctx.addIssue({
        code: 'custom',
        message:
          'use either supportedConnections + defaultCreateUserConnection (deprecated) or supportedConnectionsMap + defaultManagementConnectionName, not both',
      });
    }
    const created = management.defaultCreateUserConnection;
    if (created && !management.supportedConnections?.includes(created)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultCreateUserConnection'],
        message: 'must be one of supportedConnections',
      });
    }
    const named = management.defaultManagementConnectionName;
    if (named && !Object.hasOwn(management.supportedConnectionsMap ?? {}, named)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultManagementConnectionName'],
        message: 'must be a key of supportedConnectionsMap',
      });
    }
  });

/** The configuration file of auth0-client 3.8 (its `config.json`), keys case sensitive. */
export const authConfigSchema = z.strictObject({
  clients: z.record(text, clientSchema),
  defaultClient: z.string().optional(),
  customClaimsNamespaces: names.optional(),
  managementClient: managementClientSchema,
  auth0TenantUrl: z.string().optional(),
});

/** A client of the file with the defaults resolved. */
export interface AuthClient {
  readonly clientType: string;
  readonly auth0Url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUrl: string;
  readonly scopes: readonly string[];
  readonly audience: string | undefined;
  readonly signingAlgs: readonly string[];
  readonly supportedConnections: readonly string[];
  /** `defaultConnection`, else the first supported one, else none. */
  readonly defaultConnection: string | undefined;
  readonly sameSite: 'Lax' | 'None' | 'Strict' | undefined;
  readonly authorizeStateRequired: boolean;
}

export interface ManagementClient {
  readonly auth0Url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Names of the connections users may be listed in and created in. */
  readonly connections: readonly string[];
  readonly defaultConnection: string | undefined;
  /** Connection name → id, needed by import jobs; empty in the deprecated layout. */
  readonly connectionIds: Readonly<Record<string, string>>;
}

export interface AuthConfig {
  readonly clients: ReadonlyMap<string, AuthClient>;
  readonly defaultClient: string | undefined;
  readonly customClaimsNamespaces: readonly string[];
  readonly management: ManagementClient;
}

/** Raised when the configuration file cannot be read or breaks the schema; one line per problem. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`invalid configuration file ${file}:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Validates a parsed configuration file. Messages name paths and rules, never values (secrets). */
export function parseAuthConfig(raw: unknown, file = '<config>'): AuthConfig {
  const result = authConfigSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(
      file,
      result.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`),
    );
  }
  const config = result.data;
  const clients = new Map<string, AuthClient>();
  for (const [clientType, entry] of Object.entries(config.clients)) {
    const supported = entry.supportedConnections ?? [];
    clients.set(clientType, {
      clientType,
      auth0Url: trimSlash(entry.auth0Url),
      clientId: entry.clientId,
      clientSecret: entry.clientSecret,
      redirectUrl: entry.redirectUrl,
      scopes: entry.scopes,
      audience: entry.audience || undefined,
      signingAlgs: entry.supportedSigningAlgs?.length ? entry.supportedSigningAlgs : ['RS256'],
      supportedConnections: supported,
      defaultConnection: entry.defaultConnection || supported[0],
      sameSite: entry.sameSite,
      authorizeStateRequired: entry.authorizeStateRequired ?? false,
    });
  }
  const management = config.managementClient;
  const connectionIds = Object.fromEntries(
    Object.entries(management.supportedConnectionsMap ?? {}).map(([name, { connectionId }]) => [
      name,
      connectionId,
    ]),
  );
  return {
    clients,
    defaultClient: config.defaultClient || undefined,
    customClaimsNamespaces: config.customClaimsNamespaces ?? [],
    management: {
      auth0Url: trimSlash(management.auth0Url),
      clientId: management.clientId,
      clientSecret: management.clientSecret,
      connections: management.supportedConnections ?? Object.keys(connectionIds),
      defaultConnection:
        management.defaultManagementConnectionName || management.defaultCreateUserConnection || undefined,
      connectionIds,
    },
  };
}

/** Reads `SERVICE_CONFIG_PATH/SERVICE_CONFIG_FILE_NAME` (JSON) and validates it. */
export async function loadAuthConfig(directory: string, fileName: string): Promise<AuthConfig> {
  const file = join(directory, fileName);
  const content = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(file, [`cannot be read (${error.code ?? error.message})`]);
  });
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch {
    // JSON.parse quotes the text around the error, which may be a secret: say only where it broke.
    throw new ConfigError(file, ['is not valid JSON']);
  }
  return parseAuthConfig(raw, file);
}

/** The JSON Schema of the configuration file, for `--print-config-schema`. */
export function authConfigJsonSchema(): unknown {
  return z.toJSONSchema(authConfigSchema, { io: 'input', unrepresentable: 'any' });
}
