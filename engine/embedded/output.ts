import type { ConsumedMessage } from '../../operators/broker/types.ts';

/**
 * One output line (`engine.md` §11): `{topic, key, value}`. Keys are JSON, except in key-only
 * mode where they are base64url text (which can look like a JSON number, so the mode decides).
 */
export function formatOutputLine(
  message: Pick<ConsumedMessage, 'topic' | 'key' | 'value'>,
  keyOnly: boolean,
): string {
  const key = message.key === null ? null : keyOnly ? message.key.toString('utf8') : parse(message.key);
  const value = message.value === null ? null : parse(message.value);
  return JSON.stringify({ topic: message.topic, key, value });
}

function parse(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString('utf8'));
}
