/**
 * Example REST-to-Kafka service with two routes:
 *   POST /orders  validated by order.schema.json, produced to `orders` keyed by `orderId`, 202
 *   POST /events  any body, produced to `events` keyed by the SHA-256 of the body, answers `{id}`
 *
 *   KAFKA_BROKERS=localhost:9092 PORT=8080 node --import tsx examples/rest2broker/index.ts
 *
 * KAFKA_PROPERTIES (optional): extra librdkafka properties, `name=value` separated by commas.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { envPort, parseEnv } from '../../services/kit/index.ts';
import { createRest2Broker, KeyGeneratingAdapterFromBody } from '../../services/rest2broker/index.ts';

const env = parseEnv(
  z.object({
    KAFKA_BROKERS: z.string().min(1),
    PORT: envPort().default(8080),
    HOST: z.string().default('0.0.0.0'),
    KAFKA_PROPERTIES: z
      .string()
      .regex(/^([\w.]+=[^,]*)(,[\w.]+=[^,]*)*$/, { error: 'expected name=value[,name=value...]' })
      .transform((list) =>
        Object.fromEntries(list.split(',').map((pair) => pair.split('=', 2) as [string, string])),
      )
      .default({}),
  }),
);

const service = createRest2Broker({
  brokers: env.KAFKA_BROKERS,
  kafkaProperties: env.KAFKA_PROPERTIES,
  service: { name: 'rest2broker-example', version: '1.0.0' },
  checkUpTopic: 'events',
  routes: [
    {
      method: 'POST',
      path: '/orders',
      jsonSchema: fileURLToPath(new URL('./order.schema.json', import.meta.url)),
      broker: { topic: 'orders', key: (request) => (request.json() as { orderId: string }).orderId },
      status: 202,
      exposeKafkaHeaders: true,
    },
    {
      method: 'POST',
      path: '/events',
      adapter: new KeyGeneratingAdapterFromBody({
        topic: 'events',
        headers: { source: 'rest2broker-example' },
      }),
    },
  ],
});

await service.listen({ port: env.PORT, hostname: env.HOST });
