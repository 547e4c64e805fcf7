import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { EnvError, envInteger, envJsonObject, envPort, parseEnv } from '../kit/index.ts';

export const CHANNELS = ['email', 'sms', 'voice', 'push', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

const httpUrl = () => z.url({ protocol: /^https?$/ });
const collection = (name: string) => z.string().min(1).default(name);

function isLocale(tag: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf(tag).length > 0;
  } catch {
    return false; // a malformed tag throws a RangeError
  }
}

const ENV = z.object({
  HTTP_PORT: envPort().default(3000),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, { error: 'expected a mongodb:// or mongodb+srv:// URL' }),
  /** Default: the database named in MONGODB_URL. */
  MONGODB_DATABASE: z.string().min(1).optional(),
  USERS_CRUD_NAME: collection('users'),
  TEMPLATES_CRUD_NAME: collection('message_templates'),
  EVENTS_CRUD_NAME: collection('events'),
  EVENTS_SETTINGS_CRUD_NAME: collection('event_settings'),
  NOTIFICATIONS_CRUD_NAME: collection('notifications'),
  NOTIFICATIONS_SETTINGS_CRUD_NAME: collection('notifications_settings'),
  /** The built-in scheduler's reminders (ours: the reference keeps them in the timer service). */
  REMINDERS_CRUD_NAME: collection('notification_reminders'),
  /** `/send` answers by idempotency key (ours: the reference has no idempotency). */
  SEND_REQUESTS_CRUD_NAME: collection('notification_send_requests'),
  REMINDERS_POLL_MS: envInteger(100, 3_600_000).default(1000),
  /** The reference's service configuration file (active channels, senders, user fields). */
  CONFIGURATION_PATH: z.string().min(1).optional(),
  KAFKA_BROKERS: z.string().min(1).optional(),
  KAFKA_EVENTS_TOPIC_NAME: z.string().min(1).optional(),
  KAFKA_ERRORS_TOPIC_NAME: z.string().min(1).optional(),
  KAFKA_CONSUMER_GROUP: z.string().min(1).optional(),
  /** Extra librdkafka properties as a JSON object (security, client.id, …). */
  KAFKA_PROPERTIES: envJsonObject(),
  MAIL_SERVICE_URL: httpUrl().optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  SMS_SERVICE_URL: httpUrl().optional(),
  VOICE_SERVICE_URL: httpUrl().optional(),
  MESSAGING_SERVICE_URL: httpUrl().optional(),
  PUSH_SERVICE_URL: httpUrl().optional(),
  FILE_SERVICE_URL: httpUrl().optional(),
  TIMER_SERVICE_URL: httpUrl().optional(),
  /**
   * The reference's "name of the Notification Manager microservice": the platform reaches a
   * service as `http://<name>`, so the timer service posts expired reminders there.
   */
  SERVICE_NAME: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, { error: 'expected a host name' })
    .default('notification-manager'),
  /** Ours, optional: this service's base URL as the timer service calls it back, when not `http://<SERVICE_NAME>`. */
  TIMER_CALLBACK_URL: httpUrl().optional(),
  DEFAULT_LOCALE: z.string().refine(isLocale, { error: 'expected a BCP 47 language tag' }).default('en'),
  CUSTOM_HANDLERS_FOLDER: z.string().min(1).optional(),
  /** Attempts per delivery to a channel service before it counts as failed. */
  CHANNEL_RETRIES: envInteger(0, 10).default(2),
  CHANNEL_TIMEOUT_MS: envInteger(1, 120_000).default(10_000),
  MONGODB_TIMEOUT_MS: envInteger(1, 120_000).default(5000),
  DELAY_SHUTDOWN_SECONDS: envInteger(0, 3600).default(0),
  USERID_HEADER_KEY: z.string().min(1).default('miauserid'),
  GROUPS_HEADER_KEY: z.string().min(1).default('miausergroups'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The reference's `CONFIGURATION_PATH` file (the fields this service uses). */
export const SERVICE_CONFIGURATION = z
  .object({
    userFields: z
      .object({
        id: z.string().min(1).default('_id'),
        emailAddress: z.string().min(1).default('emailAddress'),
        phoneNumber: z.string().min(1).default('phoneNumber'),
        deviceToken: z.string().min(1).default('deviceToken'),
        clusters: z.string().min(1).default('clusters'),
        groups: z.string().min(1).default('groups'),
        roles: z.string().min(1).default('roles'),
      })
      .prefault({}),
    activeChannels: z.array(z.enum(CHANNELS)).min(1),
    sender: z
      .object({
        email: z.string().min(1).optional(),
        sms: z.string().min(1).optional(),
        voice: z.string().min(1).optional(),
        whatsappPhoneNumberId: z.string().min(1).optional(),
      })
      .prefault({}),
    androidIntentAction: z.string().default(''),
    /** `POST /saga/send`: where the send fields are in the command's metadata, and the events back. */
    flowManagerConfiguration: z
      .object({
        metadataSchema: z
          .record(z.string(), z.union([z.string().min(1), z.array(z.string().min(1))]))
          .default({}),
        serviceUrl: httpUrl().optional(),
        successEventLabel: z.string().min(1).optional(),
        failEventLabel: z.string().min(1).optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export type ServiceConfiguration = z.output<typeof SERVICE_CONFIGURATION>;
export type NotificationConfig = z.output<typeof ENV> & {
  readonly service: ServiceConfiguration;
  /** Where the timer service posts expired reminders: `TIMER_CALLBACK_URL`, else `http://<SERVICE_NAME>`. */
  readonly timerCallbackUrl: string;
};

/** Which service URL variable carries each channel. */
const CHANNEL_URL: Record<Channel, readonly (keyof z.output<typeof ENV>)[]> = {
  email: ['SMTP_URL', 'MAIL_SERVICE_URL'],
  sms: ['SMS_SERVICE_URL'],
  voice: ['VOICE_SERVICE_URL'],
  push: ['PUSH_SERVICE_URL'],
  whatsapp: ['MESSAGING_SERVICE_URL'],
};

/** The JSON Schema of the configuration file, for `configSchema()`. */
export function serviceConfigurationJsonSchema(): unknown {
  return z.toJSONSchema(SERVICE_CONFIGURATION, { io: 'input' });
}

/**
 * The environment and the configuration file. Without a file, the active channels are those whose
 * service URL is set. An {@link EnvError} names every bad variable or file field.
 */
export function readConfig(env: Readonly<Record<string, string | undefined>>): NotificationConfig {
  const parsed = parseEnv(ENV, env);
  const problems: string[] = [];
  if (parsed.SMTP_URL && parsed.MAIL_SERVICE_URL) {
    problems.push('SMTP_URL: set MAIL_SERVICE_URL or SMTP_URL, not both');
  }
  const kafka = [
    'KAFKA_BROKERS',
    'KAFKA_EVENTS_TOPIC_NAME',
    'KAFKA_ERRORS_TOPIC_NAME',
    'KAFKA_CONSUMER_GROUP',
  ] as const;
  if (kafka.some((name) => parsed[name])) {
    for (const name of kafka)
      if (!parsed[name]) problems.push(`${name}: required with the other KAFKA_* variables, not set`);
  }
  const service = readServiceConfiguration(parsed, problems);
  if (problems.length > 0 || !service) throw new EnvError(problems);
  return {
    ...parsed,
    service,
    timerCallbackUrl: parsed.TIMER_CALLBACK_URL ?? `http://${parsed.SERVICE_NAME}`,
  };
}

/** The configuration file, or what the service URLs imply without one; undefined after adding its problems. */
function readServiceConfiguration(
  env: z.output<typeof ENV>,
  problems: string[],
): ServiceConfiguration | undefined {
  const configured = (channel: Channel) => CHANNEL_URL[channel].some((name) => env[name]);
  let raw: unknown = { activeChannels: CHANNELS.filter(configured) };
  if (!env.CONFIGURATION_PATH && !CHANNELS.some(configured)) {
    problems.push(
      `${Object.values(CHANNEL_URL).flat().join(', ')}: at least one channel service is required, none set`,
    );
    return undefined;
  }
  if (env.CONFIGURATION_PATH) {
    try {
      raw = JSON.parse(readFileSync(env.CONFIGURATION_PATH, 'utf8'));
    } catch (error) {
      problems.push(
        `CONFIGURATION_PATH: cannot read JSON from ${env.CONFIGURATION_PATH} (${(error as Error).message})`,
      );
      return undefined;
    }
  }
  const result = SERVICE_CONFIGURATION.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      problems.push(`CONFIGURATION_PATH: ${issue.path.join('.') || '(file)'}: ${issue.message}`);
    }
    return undefined;
  }
  for (const channel of result.data.activeChannels) {
    if (!configured(channel)) {
      problems.push(
        `${CHANNEL_URL[channel].join(' or ')}: required by the active channel "${channel}", not set`,
      );
    }
  }
  return result.data;
}
