import type { Logger } from 'pino';
import type { BrokerProducer } from './types.ts';

/** A producer connected on first use, for services whose routes should not wait on the broker at start. */
export interface LazyProducer {
  /** The connected producer; a failed connection is tried again by the next call. */
  get(): Promise<BrokerProducer>;
  /** Flushes within `flushTimeoutMs` (a failure is logged) and disconnects, if it ever connected. */
  release(flushTimeoutMs: number): Promise<void>;
}

/**
 * @example
 *   const lazy = lazyProducer(createKafkaBroker({ properties }).producer(), logger);
 *   await (await lazy.get()).produce(record);
 *   await lazy.release(10_000); // on shutdown
 */
export function lazyProducer(producer: BrokerProducer, logger: Logger): LazyProducer {
  let connected: Promise<BrokerProducer> | undefined;
  return {
    get() {
      connected ??= producer.connect().then(
        () => producer,
        (error: unknown) => {
          connected = undefined;
          throw error;
        },
      );
      return connected;
    },
    async release(flushTimeoutMs) {
      if (!connected) return;
      await producer
        .flush(flushTimeoutMs)
        .catch((err: unknown) => logger.warn({ err }, 'producer flush failed'));
      await producer.disconnect();
    },
  };
}
