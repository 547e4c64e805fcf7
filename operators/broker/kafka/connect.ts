import type { KafkaConsumer, Metadata, Producer } from 'node-rdkafka';
import { KafkaClientError } from './errors.ts';

/**
 * Connects a client and waits for its first metadata answer, within `timeoutMs`: librdkafka
 * itself retries an unreachable broker forever, so without a bound a typo in `bootstrap.servers`
 * would hang startup instead of failing with a message naming the servers.
 */
export function connectClient(
  client: KafkaConsumer | Producer,
  what: string,
  servers: string,
  timeoutMs: number,
): Promise<Metadata> {
  return new Promise((resolve, reject) => {
    client.connect({ timeout: timeoutMs }, (err, metadata) => {
      // On failure node-rdkafka has already released the native client.
      if (!err) return resolve(metadata);
      reject(
        new KafkaClientError(`${what} could not connect to Kafka at ${servers} within ${timeoutMs} ms`, err),
      );
    });
  });
}
