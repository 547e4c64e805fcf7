import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import { CHANNELS } from './config.ts';
import { durationMs } from './duration.ts';
import { UPDATE_OPERATORS } from './update-operators.ts';

const names = z.array(z.string().min(1));

/** An array without repeated values (the reference refuses them in settings). */
const distinct = <T extends z.ZodArray>(array: T) =>
  array.refine((items: unknown[]) => new Set(items).size === items.length, { error: 'repeated values' });

export const SEND_BODY = z
  .object({
    channels: z.array(z.enum(CHANNELS)).min(1),
    recipients: names.optional(),
    clusters: names.optional(),
    groups: names.optional(),
    messageTitle: z.string().optional(),
    messageContent: z.string().optional(),
    templateId: z.string().min(1).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    /** Objects since the reference's 1.2.0; a plain file name is taken as `{file}` (before 1.2.0). */
    emailAttachments: z
      .array(
        z.union([
          z
            .string()
            .min(1)
            .transform((file) => ({ file })),
          z.object({ file: z.string().min(1), name: z.string().min(1).optional() }).loose(),
        ]),
      )
      .optional(),
    emailSender: z.string().min(1).optional(),
    emailCarbonCopies: z.array(z.string()).optional(),
    emailBlindCarbonCopies: z.array(z.string()).optional(),
  })
  .refine((b) => b.recipients?.length || b.clusters?.length || b.groups?.length, {
    error: 'recipients, clusters or groups is required',
  })
  .refine(
    (b) => b.templateId !== undefined || (b.messageTitle !== undefined && b.messageContent !== undefined),
    {
      error: 'templateId, or messageTitle and messageContent, is required',
    },
  );

/** Fields named in the reference's table; any other field is merged into `payload` (v2.3.0). */
export const EVENT_BODY = z
  .object({
    name: z.string().min(1),
    id: z.string().min(1).optional(),
    key: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
  })
  .catchall(z.unknown())
  .transform(({ name, id, key, metadata, payload, ...rest }) => ({
    name,
    id,
    key,
    metadata,
    payload: { ...payload, ...rest },
  }));

export const EVENT_SETTING_BODY = z.object({
  eventName: z.string().min(1),
  userGroups: names.optional(),
  supportedChannels: z.array(z.enum(CHANNELS)).optional(),
  eventSchema: z.record(z.string(), z.unknown()).optional(),
  handlerName: z.string().min(1).optional(),
  handlerConfig: z.record(z.string(), z.unknown()).optional(),
});

export const NOTIFICATION_SETTING_BODY = z.object({
  eventName: z.string().min(1),
  templateName: z.string().min(1),
  channels: distinct(z.array(z.enum(CHANNELS)).min(1)),
  user: z.string().min(1).optional(),
  group: z.string().min(1).optional(),
  cluster: z.string().min(1).optional(),
  role: z.string().min(1).optional(),
  /** Absent: SEND. */
  rule: z.enum(['SEND', 'IGNORE']).optional(),
  emitters: distinct(names).optional(),
  hours: distinct(
    z.array(z.string().regex(/^\d\d:\d\d-\d\d:\d\d$/, { error: 'expected HH:MM-HH:MM' })),
  ).optional(),
  reminders: distinct(
    z.array(
      z.string().refine((text) => durationMs(text) !== undefined, {
        error: 'expected an ISO 8601 duration in weeks, days, hours, minutes, seconds (P1D, PT2H)',
      }),
    ),
  ).optional(),
});

/** `POST /saga/send`: a Flow Manager command over its REST channel (the saga id as `key`). */
export const SAGA_COMMAND_BODY = z.object({
  key: z.string().min(1),
  value: z.object({
    messageLabel: z.string().min(1),
    messagePayload: z.record(z.string(), z.unknown()).default({}),
  }),
});

/** `PATCH /user/notification-settings`. */
export const PATCH_OWN_SETTINGS_BODY = z.object({
  eventName: z.string().min(1),
  enabledChannels: z.array(z.enum(CHANNELS)),
});

const templateText = z.string().optional();

/** A message template (the reference's templates CRUD); channel fields support Handlebars. */
export const TEMPLATE_BODY = z.object({
  name: z.string().min(1),
  emailTitle: templateText,
  emailMessage: templateText,
  emailHtmlMessage: templateText,
  emailAttachments: z.array(z.object({ file: z.string().min(1) }).loose()).optional(),
  smsMessage: templateText,
  voiceMessage: templateText,
  pushTitle: templateText,
  pushSubtitle: templateText,
  pushMessage: templateText,
  pushData: templateText,
  whatsappTemplateName: templateText,
  whatsappTemplateParameters: templateText,
});

const fieldOperands = z.record(z.string(), z.unknown()).optional();

/**
 * The platform CRUD's `PATCH /:id` body the reference's PATCH routes proxy, for the documentation:
 * `$set` takes the fields of `schema`; the service applies the operators, then validates the
 * resulting document whole (`update-operators.ts`).
 */
export const crudUpdateBody = (schema: z.ZodObject) =>
  z.strictObject({
    ...Object.fromEntries(UPDATE_OPERATORS.map((operator) => [operator, fieldOperands])),
    $set: schema.partial().optional(),
  });

/** The JSON body parsed by `schema`, or a 400 listing every problem. */
export async function bodyOf<Schema extends z.ZodType>(
  c: Context,
  schema: Schema,
): Promise<z.output<Schema>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  const unstorable = nulKeyPath(raw);
  if (unstorable !== undefined) throw new HttpError(400, `${unstorable}: a key must not contain NUL`);
  return parsed(raw, schema);
}

/**
 * The path of the first object key with a NUL character: MongoDB cannot store one, and the
 * free-form members (`data`, `handlerConfig`, …) would carry it to the insert (a 500).
 */
function nulKeyPath(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    for (const [key, child] of Object.entries(item.value)) {
      const path = `${item.path}/${key}`;
      if (key.includes('\0')) return JSON.stringify(path);
      stack.push({ value: child, path });
    }
  }
  return undefined;
}

/** `raw` parsed by `schema`, or a 400 listing every problem. */
export function parsed<Schema extends z.ZodType>(raw: unknown, schema: Schema): z.output<Schema> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => ({
    path: `/${issue.path.map(String).join('/')}`,
    message: issue.message,
  }));
  throw new HttpError(400, errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}
