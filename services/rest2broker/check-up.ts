import { Hono } from 'hono';
import type { BrokerProducer } from '../../operators/broker/types.ts';
import { errorBody, HttpError, type PackageInfo } from '../kit/index.ts';
import { produceAcknowledged } from './produce.ts';

export interface CheckUpOptions {
  readonly service: PackageInfo;
  /** Without a topic the check-up only says the process serves. */
  readonly topic: string | undefined;
  readonly producer: () => Promise<BrokerProducer>;
  readonly timeoutMs: number;
}

/**
 * `GET /-/check-up`: 200 `{name, version, status: "OK"}`; with a topic, only once a probe record
 * produced there was acknowledged, else 503 with `status: "KO"` and the reason.
 */
export function checkUpRoute({ service, topic, producer, timeoutMs }: CheckUpOptions): Hono {
  const ok = { ...service, status: 'OK' };
  return new Hono().get('/-/check-up', async (c) => {
    if (topic === undefined) return c.json(ok);
    const value = Buffer.from(JSON.stringify({ ...service, checkedAt: new Date().toISOString() }));
    try {
      await produceAcknowledged(producer, { topic, key: null, value }, timeoutMs);
      return c.json(ok);
    } catch (error) {
      const message = error instanceof HttpError ? error.message : String(error);
      return c.json({ ...errorBody(503, message), ...service, status: 'KO' }, 503);
    }
  });
}
