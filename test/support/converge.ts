/**
 * Whether a Kafka deployment's output converged on what one embedded engine ends on for the same
 * events: input written to Kafka, the output topic read back (each key's last two messages), and
 * the comparison per head key with a failure report naming each key that differs.
 *
 * @example
 *   const output = await readOutput(kafka, kafka.topic('output'), 'reader');
 *   await sendEvents(kafka, (node) => kafka.topic(node), events);
 *   const expected = await embeddedAggregates(configFor(DIAMOND), events, 3);
 *   await until('the output converged', () => output.converged(expected), 30_000, () => output.report(expected));
 *   await output.stop();
 */
import * as assert from 'uvu/assert';
import type { Config } from '../../engine/config/index.ts';
import { canonicalJson } from '../../engine/record/key.ts';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { ConsumedMessage } from '../../operators/broker/types.ts';
import type { JsonValue } from '../../operators/record/json.ts';
import { runEvents } from './embedded.ts';
import type { KafkaFixture } from './kafka.ts';
import { expectedAggregates, type InputEvent } from './oracle.ts';

/** Writes each event to its node's topic, keyed by its JSON key, and waits for every delivery. */
export async function sendEvents(
  kafka: Pick<KafkaFixture, 'properties'>,
  topic: (node: string) => string,
  events: readonly InputEvent[],
): Promise<void> {
  const producer = createKafkaBroker({ properties: kafka.properties }).producer();
  await producer.connect();
  try {
    await Promise.all(
      events.map((e) =>
        producer.produce({
          topic: topic(e.topic),
          key: Buffer.from(JSON.stringify(e.key)),
          value: Buffer.from(JSON.stringify(e.value)),
        }),
      ),
    );
  } finally {
    await producer.disconnect();
  }
}

/**
 * What one embedded engine (in-process broker, MemoryStore) ends on for the same events: each
 * head key's last aggregate, keys ending on a tombstone left out. It must also be the oracle's
 * (the aggregates of the final records, computed the slow way), or the comparison proves nothing.
 */
export async function embeddedAggregates(
  config: Config,
  events: readonly InputEvent[],
  partitions: number,
): Promise<Map<string, JsonValue>> {
  const embedded = await runEvents(config, events, { partitions });
  const result = new Map<string, JsonValue>();
  for (const [key, value] of embedded.last) {
    if (value) result.set(canonicalJson(JSON.parse(key)), value.after as JsonValue);
  }
  const head = config.processor.graph.nodes.find((n) => n.edges.in.length === 0)?.id ?? '';
  const oracle = expectedAggregates(config, events).get(head) ?? new Map<string, JsonValue>();
  assert.equal(result, oracle, 'the embedded engine ends on the aggregates of the final records');
  return result;
}

export interface OutputReader {
  /** Per output key, its last two messages. */
  readonly last: ReadonlyMap<string, [ConsumedMessage | undefined, ConsumedMessage]>;
  /** Every expected key's last message is its aggregate (op `r`), every other key's d + tombstone. */
  converged(expected: ReadonlyMap<string, JsonValue>): boolean;
  /** Each key that differs (or all of them), with its last two messages. */
  report(expected: ReadonlyMap<string, JsonValue>): string;
  stop(): Promise<void>;
}

export async function readOutput(
  kafka: Pick<KafkaFixture, 'properties'>,
  topic: string,
  groupId: string,
): Promise<OutputReader> {
  const consumer = createKafkaBroker({ properties: kafka.properties }).consumer({ groupId });
  await consumer.connect();
  consumer.subscribe([topic]);
  const last = new Map<string, [ConsumedMessage | undefined, ConsumedMessage]>();
  let reading = true;
  const reader = (async () => {
    while (reading) {
      for (const m of await consumer.consume(500, 200)) {
        const key = m.key?.toString() ?? '';
        last.set(key, [last.get(key)?.[1], m]);
      }
    }
  })();
  const keyOk = (expected: ReadonlyMap<string, JsonValue>, ck: string) => {
    const [deleted, final] = last.get(ck) ?? [undefined, undefined];
    if (!final) return false;
    if (expected.has(ck)) {
      if (!final.value) return false;
      const message = JSON.parse(final.value.toString());
      return message.op === 'r' && JSON.stringify(message.after) === JSON.stringify(expected.get(ck));
    }
    return final.value === null && !!deleted?.value && JSON.parse(deleted.value.toString()).op === 'd';
  };
  const keys = (expected: ReadonlyMap<string, JsonValue>) => new Set([...expected.keys(), ...last.keys()]);
  return {
    last,
    converged: (expected) => [...keys(expected)].every((ck) => keyOk(expected, ck)),
    report: (expected) => {
      const text = (m?: ConsumedMessage) => (m ? (m.value?.toString().slice(0, 120) ?? 'tombstone') : 'none');
      const wrong = [...keys(expected)].filter((ck) => !keyOk(expected, ck));
      return `\n${wrong.length} key(s) differ:\n${wrong
        .slice(0, 20)
        .map((ck) => {
          const [before, final] = last.get(ck) ?? [undefined, undefined];
          return `${ck}: expected ${expected.has(ck) ? 'r' : 'd + tombstone'}; last two: ${text(before)} | ${text(final)}`;
        })
        .join('\n')}`;
    },
    stop: async () => {
      reading = false;
      await reader.catch(() => {});
      await consumer.disconnect().catch(() => {});
    },
  };
}
