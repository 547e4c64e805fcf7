import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { concatMap, filter, firstValueFrom, lastValueFrom, ReplaySubject, Subject } from 'rxjs';
import { lazyProducer } from '../../operators/broker/lazy-producer.ts';
import type { Broker, ConsumedMessage, RebalanceEvent } from '../../operators/broker/types.ts';
import { commitAcknowledged, consumeBatches } from '../../operators/index.ts';
import { HttpError } from '../kit/index.ts';
import { EVENT_BODY } from './bodies.ts';
import type { EventProcessor } from './events.ts';

export interface KafkaIntakeOptions {
  readonly broker: Broker;
  readonly eventsTopic: string;
  readonly errorsTopic: string;
  readonly groupId: string;
  readonly events: EventProcessor;
  readonly logger: Logger;
  readonly maxBatchSize?: number;
  readonly commitIntervalMs?: number;
}

export interface KafkaIntake {
  /** Resolves once the consumer got its first partitions. */
  readonly assigned: Promise<void>;
  /**
   * Resolves with the error when the intake stopped reading by itself: its pipeline failed for a
   * reason that is not retried (a commit refused, the consumer failing) or ended. It does not
   * restart: the service goes not ready and exits non-zero, as the engine does on a failed
   * pipeline. Never settles otherwise.
   */
  readonly failed: Promise<Error>;
  /** Stops reading, finishes and commits the batches in flight, disconnects. */
  stop(): Promise<void>;
}

/** Why a message cannot become notifications: it goes to the errors topic and is committed. */
class BadMessage extends Error {}

function parse(message: ConsumedMessage) {
  let json: unknown;
  try {
    json = JSON.parse(message.value?.toString('utf8') ?? '');
  } catch {
    throw new BadMessage('the message is not JSON');
  }
  const result = EVENT_BODY.safeParse(json);
  if (!result.success)
    throw new BadMessage(result.error.issues.map((i) => `/${i.path.join('/')}: ${i.message}`).join('; '));
  // Without an id, the message's position is the idempotency key: a redelivery is the same event.
  return { ...result.data, id: result.data.id ?? `${message.topic}:${message.partition}:${message.offset}` };
}

/**
 * Events from Kafka, through the same {@link EventProcessor} as `POST /notification-events/`. A
 * batch is committed (commitAcknowledged) only after each of its events is stored and its
 * notifications sent; a bad or unknown event goes to the errors topic, so it never stalls the
 * partition; MongoDB, a channel service or the broker down (at start too) is retried with backoff
 * until it answers (nothing is committed meanwhile, what was sent is not sent again), so the HTTP
 * intake serves whatever Kafka does.
 */
export function startKafkaIntake(options: KafkaIntakeOptions): KafkaIntake {
  const { broker, events, logger } = options;
  const consumer = broker.consumer({ groupId: options.groupId });
  const producer = lazyProducer(broker.producer(), logger);
  // Replayed: a stop before the pipeline subscribed still drains it.
  const drain = new ReplaySubject<void>(1);
  const rebalances = new Subject<RebalanceEvent>();
  let stopping = false;
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });
  const assigned = firstValueFrom(rebalances.pipe(filter((e) => e.kind === 'assign'))).then(() => undefined);

  /** Retries `attempt` with backoff (up to 5 s apart) until it succeeds or the intake stops. */
  const persist = async (what: string, attempt: () => Promise<void>): Promise<boolean> => {
    for (let tries = 0; ; tries++) {
      try {
        await attempt();
        return true;
      } catch (err) {
        if (stopping) return false;
        logger.error({ err, tries }, `${what} failed, retrying`);
        await sleep(Math.min(5000, 100 * 2 ** tries));
      }
    }
  };

  const toErrors = async (message: ConsumedMessage, error: string) => {
    const value = Buffer.from(
      JSON.stringify({
        error,
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        event: message.value?.toString('utf8'),
      }),
    );
    await (await producer.get()).produce({ topic: options.errorsTopic, key: message.key, value });
  };

  /** The message's events processed, or the message on the errors topic; MongoDB or the broker down: retried. */
  const handle = async (message: ConsumedMessage) => {
    const where = { topic: message.topic, partition: message.partition, offset: message.offset };
    let rejected: string | undefined;
    const done = await persist('event', async () => {
      if (rejected === undefined) {
        try {
          await events.process(parse(message), { type: 'kafka', ...where }, { untilDelivered: true });
          return;
        } catch (error) {
          if (!(error instanceof BadMessage || (error instanceof HttpError && error.status < 500)))
            throw error;
          rejected = error.message;
          logger.warn({ ...where, reason: rejected }, 'event to the errors topic');
        }
      }
      await toErrors(message, rejected);
    });
    // Stopping mid-message: the batch must not be committed, it is read again at the next start.
    if (!done) throw new Error('stopped before the message was handled');
  };

  const done = persist('Kafka connection', () => consumer.connect())
    .then((connected) =>
      connected
        ? lastValueFrom(
            consumeBatches(consumer, {
              topics: [options.eventsTopic],
              maxBatchSize: options.maxBatchSize ?? 100,
              maxInFlight: 2,
              drain,
              events: rebalances,
            }).pipe(
              concatMap(async (batch) => {
                for (const message of batch.items) await handle(message);
                return batch;
              }),
              commitAcknowledged(consumer, { intervalMs: options.commitIntervalMs ?? 1000 }),
            ),
            { defaultValue: undefined },
          )
        : undefined,
    )
    .then(
      () => {
        if (!stopping) throw new Error('the Kafka intake ended without being stopped');
      },
      (err: unknown) => {
        if (!stopping) throw err;
        logger.error({ err }, 'Kafka intake stopped');
      },
    )
    .catch((err: unknown) => {
      // Not one of the retried failures: reading on would need a new consumer, which a new
      // process gives, with the uncommitted batches read again (events are idempotent).
      const error = err instanceof Error ? err : new Error(String(err));
      logger.fatal({ err: error }, 'Kafka intake failed: no more events are read from Kafka');
      fail(error);
    });

  return {
    assigned,
    failed,
    async stop() {
      stopping = true;
      drain.next();
      await done;
      await producer.release(10_000);
      await consumer
        .disconnect()
        .catch((err: unknown) => logger.warn({ err }, 'Kafka consumer disconnect failed'));
    },
  };
}
