import { type Collection, MongoServerError } from 'mongodb';
import { HttpError } from '../kit/index.ts';
import type { Stored } from './store.ts';

/** The header a client repeats to make a retried `/send` a no-op (Stripe, Svix, Novu). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

export interface SendRequest extends Stored {
  readonly status: 'IN_PROGRESS' | 'DONE';
  readonly answer?: unknown;
}

const DUPLICATE_KEY = 11000;

/**
 * Runs `send` once per idempotency key: the key is claimed before sending; the same key again
 * answers the stored answer, or 409 while the first request is still sending. A request whose
 * sending failed (threw) releases its key, so the client's retry sends.
 */
export async function once<T>(
  requests: Collection<SendRequest>,
  key: string | undefined,
  send: () => Promise<T>,
): Promise<T> {
  if (!key) return send();
  try {
    await requests.insertOne({ _id: key, status: 'IN_PROGRESS', createdAt: new Date() });
  } catch (error) {
    if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    const seen = await requests.findOne({ _id: key });
    if (seen?.status === 'DONE') return seen.answer as T;
    throw new HttpError(409, `a request with ${IDEMPOTENCY_HEADER} "${key}" is still being processed`);
  }
  try {
    const answer = await send();
    await requests.updateOne({ _id: key }, { $set: { status: 'DONE', answer } });
    return answer;
  } catch (error) {
    await requests.deleteOne({ _id: key });
    throw error;
  }
}
