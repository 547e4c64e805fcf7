import { BehaviorSubject, concatMap, lastValueFrom, Subject } from 'rxjs';
import type { Batch } from '../../operators/batch.ts';
import type { Broker, BrokerConsumer, ConsumedMessage } from '../../operators/broker/types.ts';
import { commitAcknowledged } from '../../operators/commit-acknowledged.ts';
import { consumeBatches } from '../../operators/consume-batches.ts';
import type { KafkaTarget, RunTopics } from './kafka-target.ts';

/** As the engine's input pipelines: batches of up to 1000, two read ahead, commits every 500 ms. */
const BATCHING = { maxBatchSize: 1000, maxInFlight: 2 };
const COMMIT_INTERVAL_MS = 500;

/**
 * The 2-hop echo on Kafka: input topics -> internal -> output, each hop a consumer group and an
 * idempotent `acks=all` producer (the broker seam forces both, as for the engine), parsing and
 * serializing each event and committing once its records are acknowledged, on the engine's own
 * source and commit operators. These are the hops `engine.md` §6 prescribes, with nothing else:
 * no store, no graph, no compression, each event echoed. Headers pass through (the paced run's
 * send time, for its latency).
 */
export async function startKafkaEcho(broker: Broker, topics: RunTopics, runId: string): Promise<KafkaTarget> {
  const paused = new BehaviorSubject(true);
  const stop = new Subject<void>();
  const hops = [
    { from: [...topics.inputs.values()], to: topics.internal },
    { from: [topics.internal], to: topics.output },
  ].map((hop, i) => ({
    ...hop,
    consumer: broker.consumer({ groupId: `bench.echo.${runId}.${i}` }),
    producer: broker.producer(),
    assigned: false,
  }));
  await Promise.all(hops.flatMap((h) => [h.consumer.connect(), h.producer.connect()]));
  const ended = hops.map((hop) =>
    lastValueFrom(
      consumeBatches(hop.consumer, {
        topics: hop.from,
        ...BATCHING,
        paused,
        drain: stop,
        events: {
          next: (event) => {
            if (event.kind === 'assign') hop.assigned = true;
          },
        },
      }).pipe(
        concatMap(async (batch: Batch<ConsumedMessage>) => {
          await Promise.all(
            batch.items.map((m) =>
              hop.producer.produce({
                topic: hop.to,
                key: Buffer.from(JSON.stringify(JSON.parse((m.key as Buffer).toString('utf8')))),
                value: Buffer.from(JSON.stringify(JSON.parse((m.value as Buffer).toString('utf8')))),
                ...(m.headers ? { headers: m.headers } : {}),
              }),
            ),
          );
          return batch;
        }),
        commitAcknowledged(hop.consumer, { intervalMs: COMMIT_INTERVAL_MS }),
      ),
      { defaultValue: null },
    ),
  );
  const failed = Promise.all(ended).then(() => {
    throw new Error('the echo stopped');
  });
  failed.catch(() => undefined);
  const consumers: BrokerConsumer[] = hops.map((h) => h.consumer);
  return {
    ready: async () => hops.every((h) => h.assigned),
    start: () => paused.next(false),
    idle: async () => {
      const lags = await Promise.all(consumers.map((c) => c.lag())).catch(() => null);
      return lags?.every((partitions) => partitions.every((p) => p.lag === 0)) ?? false;
    },
    failed,
    async stop() {
      stop.next();
      await Promise.allSettled(ended);
      await Promise.allSettled(consumers.map((c) => c.disconnect()));
      await Promise.allSettled(hops.map((h) => h.producer.flush(10_000).then(() => h.producer.disconnect())));
    },
  };
}
