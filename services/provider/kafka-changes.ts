import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { lastValueFrom, of, timeout } from 'rxjs';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import { lazyProducer } from '../../operators/broker/lazy-producer.ts';
import type { ClientProperties } from '../../operators/broker/types.ts';
import { produceRecords } from '../../operators/index.ts';
import { HttpError } from '../kit/index.ts';
import type { ChangePublisher, ProviderChange } from './changes.ts';

export interface KafkaChangesOptions {
  readonly topic: string;
  /** librdkafka properties, `bootstrap.servers` included. */
  readonly properties: ClientProperties;
  /** How long a change may wait for its acknowledgement (and a connection) before the request answers 503. */
  readonly ackTimeoutMs: number;
  readonly logger: Logger;
  /** Counts the producer's replacements by the watchdog (`streamfold_kafka_clients_replaced_total`). */
  readonly registry?: Registry;
}

/**
 * Publishes each change as one record through the engine's produce operator and waits for its
 * delivery report. The producer connects on first use; a failed connection is retried by the next
 * change. A change not acknowledged in time is a 503 (it stays pending on its record: ChangeRelay).
 */
export function kafkaChanges({
  topic,
  properties,
  ackTimeoutMs,
  logger,
  registry,
}: KafkaChangesOptions): ChangePublisher {
  const producer = lazyProducer(
    createKafkaBroker({
      properties,
      logger,
      timeoutMs: ackTimeoutMs,
      ...(registry ? { registry } : {}),
    }).producer(),
    logger,
  );

  return {
    async publish({ key, value }: ProviderChange) {
      const record = {
        topic,
        key: Buffer.from(JSON.stringify({ tenantId: key.tenantId, providerId: key.providerId })),
        value: Buffer.from(JSON.stringify(value)),
      };
      try {
        const ready = await producer.get();
        await lastValueFrom(
          of({ items: [record], acks: [] }).pipe(produceRecords(ready), timeout({ first: ackTimeoutMs })),
        );
      } catch (error) {
        throw new HttpError(
          503,
          `the change was stored but not acknowledged by the broker on "${topic}"; its event is kept and will be re-sent`,
          { cause: error },
        );
      }
    },
    close: () => producer.release(ackTimeoutMs),
  };
}
