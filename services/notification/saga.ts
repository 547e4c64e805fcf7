import type { Logger } from 'pino';
import type { z } from 'zod';
import type { SAGA_COMMAND_BODY } from './bodies.ts';
import type { ServiceConfiguration } from './config.ts';
import { postJson, withSlash } from './http.ts';
import { withRetries } from './retry.ts';

type FlowManagerConfiguration = NonNullable<ServiceConfiguration['flowManagerConfiguration']>;
type SagaCommand = z.output<typeof SAGA_COMMAND_BODY>;

/** The `/send` fields a command's metadata can carry; those that are lists gather every path's values. */
const LIST_FIELDS = [
  'channels',
  'recipients',
  'clusters',
  'emailAttachments',
  'emailCarbonCopies',
  'emailBlindCarbonCopies',
];
const SCALAR_FIELDS = ['messageTitle', 'messageContent', 'templateId', 'emailSender'];

/** The value at a dot path (`buyer.name`) of an object. */
function at(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (current, part) =>
        typeof current === 'object' && current !== null
          ? (current as Record<string, unknown>)[part]
          : undefined,
      value,
    );
}

/**
 * The `/send` body a Flow Manager command stands for: each field read from the command's
 * `messagePayload` (the saga metadata) at the path `metadataSchema` gives it (by default, its own
 * name); `data` is the command itself, as in the reference without `getDataFilePath`.
 */
export function sendBodyOf(
  command: SagaCommand,
  flow: FlowManagerConfiguration | undefined,
): Record<string, unknown> {
  const metadata = command.value.messagePayload;
  const paths = (field: string) => {
    const configured = flow?.metadataSchema[field] ?? field;
    return Array.isArray(configured) ? configured : [configured];
  };
  const body: Record<string, unknown> = { data: command };
  for (const field of LIST_FIELDS) {
    const values = paths(field).flatMap((path) => at(metadata, path) ?? []);
    if (values.length > 0) body[field] = values;
  }
  for (const field of SCALAR_FIELDS) {
    const [path = field] = paths(field);
    const value = at(metadata, path);
    if (value !== undefined) body[field] = value;
  }
  return body;
}

/** Tells the Flow Manager how the command went (its REST events route), when configured to; a failure is logged. */
export async function notifyFlowManager(
  flow: FlowManagerConfiguration | undefined,
  sagaId: string,
  succeeded: boolean,
  options: { timeoutMs: number; retries: number; logger: Logger },
): Promise<void> {
  const label = succeeded ? flow?.successEventLabel : flow?.failEventLabel;
  if (!flow?.serviceUrl || !label) return;
  const url = new URL('event', withSlash(flow.serviceUrl)).href;
  const event = { key: sagaId, value: { messageLabel: label, messagePayload: {} } };
  await withRetries(options.retries, () => postJson(url, event, options.timeoutMs)).catch((err: unknown) =>
    options.logger.error({ err, sagaId, label }, 'flow manager event not delivered'),
  );
}
