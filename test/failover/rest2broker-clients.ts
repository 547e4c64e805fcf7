/**
 * REST-to-broker under failover: the service with its own producer on a test cluster, and
 * clients posting one request after another, without pause, every answer kept (the failover and
 * rolling-restart tests of `rest2broker*.test.ts`). Each request is a record of its own id.
 *
 * @example
 *   const service = await startRest2Broker(kafka, topics.orders);
 *   const clients = startClients(service.base);
 *   …
 *   await clients.stop();
 *   await service.close();
 */
import pino from 'pino';
import { createRest2Broker } from '../../services/rest2broker/index.ts';
import { startTopicReader } from '../services/rest2broker/topic-reader.ts';
import { type FailoverCluster, until } from './cluster.ts';

export const CLIENTS = 4;
export const PRODUCE_TIMEOUT_MS = 3000;
/** An answer later than the produce timeout by more than this is a hang (two busy cores). */
export const ANSWER_MARGIN_MS = 3000;

export interface Answer {
  readonly id: string;
  readonly status: number;
  readonly body: string;
  readonly started: number;
  readonly ms: number;
}

export interface Clients {
  readonly answers: readonly Answer[];
  /** The answers to requests started at `from` or later. */
  since(from: number): Answer[];
  /** `; answers since: {"204":…,"503":…}, last: …`, for a wait's failure message. */
  summary(from: number): () => string;
  stop(): Promise<void>;
}

/** `CLIENTS` clients posting one request after another to `${base}/orders/<id>` until `stop`. */
export function startClients(base: string): Clients {
  const answers: Answer[] = [];
  let running = true;
  let next = 0;
  const client = async () => {
    while (running) {
      const id = `order-${next++}`;
      const started = Date.now();
      const response = await fetch(`${base}/orders/${id}`, { method: 'POST', body: id });
      answers.push({
        id,
        status: response.status,
        body: await response.text(),
        started,
        ms: Date.now() - started,
      });
    }
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, client));
  const since = (from: number) => answers.filter((a) => a.started >= from);
  return {
    answers,
    since,
    summary: (from) => () =>
      `; answers since: ${JSON.stringify(statusCounts(since(from)))}, last: ${answers.at(-1)?.body ?? 'none'}`,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** Status → how many answers had it. */
export function statusCounts(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

/** Waits until every id answered 204 is read back from `topic` (keyed by the id); names the missing ones if not. */
export async function expectAcknowledgedOnTopic(
  kafka: FailoverCluster,
  topic: string,
  partitions: number,
  acknowledged: readonly string[],
): Promise<void> {
  const reader = await startTopicReader(kafka, { [topic]: partitions });
  try {
    const onTopic = new Set<string>();
    await until(
      'every acknowledged record is read back',
      () => {
        for (const m of reader.messages(topic)) onTopic.add(m.key!.toString());
        return acknowledged.every((id) => onTopic.has(id));
      },
      60_000,
      () => `; missing: ${acknowledged.filter((id) => !onTopic.has(id)).join(', ')}`,
    );
  } finally {
    await reader.stop();
  }
}

/**
 * The service (`POST /orders/:id` → a record keyed by the id on `topic`) with its own producer
 * (idempotent, `acks=all`), listening on a free port; its log lines at `warn` and up kept
 * (`TEST_LOG=debug` sets the level and prints them too).
 */
export async function startRest2Broker(kafka: FailoverCluster, topic: string) {
  const lines: string[] = [];
  const { 'bootstrap.servers': _, ...kafkaProperties } = kafka.properties;
  const service = createRest2Broker({
    brokers: kafka.brokers,
    kafkaProperties,
    routes: [{ method: 'POST', path: '/orders/:id', broker: { topic, key: (r) => r.params.id! } }],
    produceTimeoutMs: PRODUCE_TIMEOUT_MS,
    flushTimeoutMs: 1000,
    service: { name: 'failover', version: '0.0.0' },
    logger: pino(
      { level: process.env.TEST_LOG ?? 'warn' },
      {
        write: (line: string) => {
          lines.push(line);
          if (process.env.TEST_LOG) process.stdout.write(line);
        },
      },
    ),
  });
  const server = await service.listen({ hostname: '127.0.0.1', port: 0, handleSignals: false });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    base,
    /** Its log lines so far. */
    log: () => lines.join(''),
    metrics: async () => (await fetch(`${base}/-/metrics`)).text(),
    close: () => service.close(),
  };
}
