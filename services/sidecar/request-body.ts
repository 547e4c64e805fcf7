/** The request body Rönd puts in `input.request.body`: JSON bodies of writes, read whole and bounded. */
import type { IncomingMessage } from 'node:http';

const WRITE_METHODS = new Set(['PATCH', 'POST', 'PUT', 'DELETE']);

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}
export class BodyParseError extends Error {
  override readonly name = 'BodyParseError';
}

/** As Rönd: a JSON content type, a declared length above 0 and a write method. */
export function shouldParseBody(method: string, incoming: IncomingMessage): boolean {
  const type = incoming.headers['content-type'] ?? '';
  const length = Number(incoming.headers['content-length'] ?? 0);
  return type.startsWith('application/json') && length > 0 && WRITE_METHODS.has(method);
}

export async function readJsonBody(
  incoming: IncomingMessage,
  maxBytes: number,
): Promise<{ bytes: Buffer; json: unknown }> {
  if (Number(incoming.headers['content-length']) > maxBytes)
    throw new BodyTooLargeError(`request body larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLargeError(`request body larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  try {
    return { bytes, json: JSON.parse(bytes.toString('utf8')) };
  } catch (err) {
    throw new BodyParseError(`failed request body deserialization: ${(err as Error).message}`);
  }
}

/** Whether the request carries a body to stream on. */
export function hasBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return (length !== undefined && length !== '0') || incoming.headers['transfer-encoding'] !== undefined;
}
