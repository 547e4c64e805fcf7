import type { BrokerProducer, DeliveryReport, ProducerRecord } from '../../operators/broker/types.ts';
import { HttpError } from '../kit/index.ts';

/**
 * Produces (connecting first if needed) and waits for the delivery report, at most `timeoutMs`. A failure or a timeout is a
 * 503: the broker, not the request, is at fault. After a timeout the record may still be
 * delivered later (at-least-once for a client that retries).
 */
export async function produceAcknowledged(
  producer: () => Promise<BrokerProducer>,
  record: ProducerRecord,
  timeoutMs: number,
): Promise<DeliveryReport> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new HttpError(
            503,
            `broker did not acknowledge the record on "${record.topic}" within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
  });
  const delivery = producer()
    .then((connected) => connected.produce(record))
    .catch((error: unknown) => {
      throw new HttpError(503, `delivery to "${record.topic}" failed: ${(error as Error).message}`, {
        cause: error,
      });
    });
  try {
    return await Promise.race([delivery, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
