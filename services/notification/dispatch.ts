import type { AttachmentRef } from './attachments.ts';
import type { Deliver, Message } from './channels.ts';
import type { Channel } from './config.ts';
import { PermanentError } from './retry.ts';
import type { RenderMessage, Template } from './templates.ts';
import type { User } from './users.ts';

/** One message's outcome, as the reference stores it in a notification's `messages`. */
export interface MessageOutcome {
  readonly status: 'SUCCESS' | 'FAILURE';
  readonly channel: Channel;
  readonly templateName?: string;
  /** The custom attachments sent besides the template's (a custom handler's `sendMessages`, reference 2.3.0). */
  readonly attachments?: readonly AttachmentRef[];
  readonly service?: Record<string, unknown>;
  /** `retryable`: the channel could not take it for now (network, timeout, 408/429/5xx after the retries). */
  readonly error?: { readonly message: string; readonly retryable?: true };
}

/** Whether a message failed only because its channel was unavailable: sending it later may succeed. */
export const retryable = (message: MessageOutcome) => message.error?.retryable === true;

export interface Dispatch {
  readonly users: readonly User[];
  readonly channels: readonly Channel[];
  readonly template: Template;
  /** What templates see as `data`: the `/send` body's, or the event payload. */
  readonly data: unknown;
  /** Fields every message carries whatever the template (email sender, copies). */
  readonly extras?: Partial<Message>;
}

/**
 * Renders and delivers the template to every user on every channel, all in parallel; a user
 * without an address on a channel is skipped on it, as the reference does.
 */
export async function dispatch(
  { users, channels, template, data, extras }: Dispatch,
  render: RenderMessage,
  deliver: Deliver,
): Promise<Map<string, MessageOutcome[]>> {
  const outcomes = new Map<string, MessageOutcome[]>();
  await Promise.all(
    users.map(async (user) => {
      const results = await Promise.all(
        channels.map(async (channel): Promise<MessageOutcome | undefined> => {
          const address = user.addresses[channel];
          if (!address) return undefined;
          const base = { channel, templateName: template.name as string | undefined };
          let message: Message | undefined;
          try {
            message = render(template, channel, { data, user: user.record });
          } catch (error) {
            return {
              ...base,
              status: 'FAILURE',
              error: { message: `template: ${(error as Error).message}` },
            };
          }
          if (!message) return undefined;
          try {
            const attachments = [...(message.attachments ?? []), ...(extras?.attachments ?? [])];
            const service = await deliver(channel, address, { ...message, ...extras, attachments });
            return { ...base, status: 'SUCCESS', service };
          } catch (error) {
            const { message } = error as Error;
            return {
              ...base,
              status: 'FAILURE',
              error: error instanceof PermanentError ? { message } : { message, retryable: true },
            };
          }
        }),
      );
      outcomes.set(
        user.id,
        results.filter((r) => r !== undefined),
      );
    }),
  );
  return outcomes;
}

/** The `/send` answer's `failures`: only the deliveries that failed. */
export function failuresOf(outcomes: Map<string, MessageOutcome[]>) {
  return [...outcomes].flatMap(([userId, messages]) =>
    messages
      .filter((m) => m.status === 'FAILURE')
      .map((m) => ({ userId, channel: m.channel, error: m.error?.message ?? 'failed' })),
  );
}
