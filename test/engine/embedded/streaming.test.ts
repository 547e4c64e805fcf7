import * as assert from 'node:assert/strict';
import { pino } from 'pino';
import type { Config } from '../../../engine/config/index.ts';
import { EmbeddedEngine, type EmbeddedEngineOptions } from '../../../engine/embedded/engine.ts';
import { parseInputLine } from '../../../engine/embedded/input.ts';
import { formatOutputLine } from '../../../engine/embedded/output.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import type { ConsumedMessage } from '../../../operators/broker/types.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { create, runEvents, update } from '../../support/embedded.ts';
import type { InputEvent } from '../../support/oracle.ts';
import { test } from '../../support/suite.ts';

const INPUT_TOPICS = ['customers', 'orders', 'items'];
const TOPICS = [...INPUT_TOPICS, 'internal', 'output'];

/** A single-view stream: customers, orders moving between customers, items, updated over and over. */
function events(count: number): InputEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const r = i % 10;
    if (r < 2) return (i < 4000 ? create : update)('customers', { id: i % 400, name: `c${i}` });
    if (r < 5) return update('orders', { id: i % 1000, customerId: (i * 7) % 400, total: i });
    return update('items', { id: i % 4000, orderId: (i * 13) % 1000, qty: i });
  });
}

async function start(
  config: Config,
  onOutput: (message: ConsumedMessage) => unknown,
  options: Partial<EmbeddedEngineOptions> = {},
): Promise<EmbeddedEngine> {
  return EmbeddedEngine.start({
    config,
    logger: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
    partitions: 3,
    onOutput,
    ...options,
  });
}

const feedOne = (embedded: EmbeddedEngine, event: InputEvent, line: number) =>
  embedded.feed(parseInputLine(JSON.stringify(event), 'test', line, embedded.inputTopics));

/** Messages the broker holds over the engine's topics, and how many were ever appended. */
function brokerCounts(embedded: EmbeddedEngine) {
  let retained = 0;
  let appended = 0;
  for (const topic of TOPICS) {
    for (const { low, high } of embedded.broker.offsets(topic)) {
      retained += high - low;
      appended += high;
    }
  }
  return { retained, appended };
}

/** Input records not committed by the engine's input groups (counted here, not by the engine). */
const uncommittedInput = (embedded: EmbeddedEngine) =>
  INPUT_TOPICS.reduce((n, node) => n + embedded.broker.groupLag(`streamfold.testEngine01.${node}`), 0);

/** The promise, or a rejection once `ms` passed (the engine gives up retrying within ~8 s). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Last output value per key. */
function lastPerKey(messages: readonly ConsumedMessage[]): Map<string, unknown> {
  const last = new Map<string, unknown>();
  for (const m of messages) {
    const line = JSON.parse(formatOutputLine(m, false)) as { key: unknown; value: unknown };
    last.set(JSON.stringify(line.key), line.value);
  }
  return last;
}

test('the broker drops what every group committed while the engine runs; outputs come before drain', async () => {
  const stream = events(10_000);
  const outputs: ConsumedMessage[] = [];
  const embedded = await start(configFor(SINGLE_VIEW), (m) => outputs.push(m));
  let maxRetained = 0;
  for (const [i, event] of stream.entries()) {
    await feedOne(embedded, event, i + 1);
    if (i % 250 === 0) maxRetained = Math.max(maxRetained, brokerCounts(embedded).retained);
  }
  const deliveredBeforeDrain = outputs.length;
  const lows = (topic: string) => embedded.broker.offsets(topic).reduce((n, p) => n + p.low, 0);
  const trimmed = { internal: lows('internal'), output: lows('output') };
  await embedded.drain();
  const { retained, appended } = brokerCounts(embedded);
  await embedded.stop();

  assert.ok(appended > stream.length, `appended ${appended}: input, internal updates and outputs`);
  assert.ok(
    maxRetained < appended / 10,
    `the broker held at most ${maxRetained} messages of ${appended} appended`,
  );
  assert.ok(trimmed.internal > 0, 'internal updates were dropped while feeding');
  assert.ok(trimmed.output > 0, 'outputs were dropped while feeding');
  assert.ok(deliveredBeforeDrain > 0, `${deliveredBeforeDrain} outputs reached onOutput before drain`);
  assert.equal(retained, 0, 'after drain every group committed everything: nothing is kept');
  assert.ok(outputs.length > deliveredBeforeDrain);
});

test('feed waits while maxPendingInput records are uncommitted; the outputs equal a default run', async () => {
  const stream = events(24_000);
  // Input commits every 500 ms (the default): fed faster than that, the bound is hit.
  const config = configFor(SINGLE_VIEW, (d) => {
    for (const consumer of Object.values(d.consumers.config) as { commitIntervalMs: number }[]) {
      consumer.commitIntervalMs = 500;
    }
  });
  const outputs: ConsumedMessage[] = [];
  const embedded = await start(config, (m) => outputs.push(m), {
    maxPendingInput: 2_000,
  });
  const records = stream.map((e, i) =>
    parseInputLine(JSON.stringify(e), 'test', i + 1, embedded.inputTopics),
  );
  let maxPending = 0;
  for (const record of records) {
    await embedded.feed(record);
    maxPending = Math.max(maxPending, uncommittedInput(embedded));
  }
  await embedded.drain();
  await embedded.stop();
  assert.ok(maxPending >= 1_600, `backpressure engaged: up to ${maxPending} records were pending`);
  assert.ok(maxPending <= 2_000 + 1_000, `at most 2000 (+ one batch) pending, saw ${maxPending}`);

  const reference = await runEvents(config, stream, { partitions: 3 });
  const expected = reference.last;
  const actual = lastPerKey(outputs);
  assert.equal(actual.size, expected.size, 'the same keys');
  for (const [key, value] of expected) assert.deepEqual(actual.get(key), value, `final output of ${key}`);
});

test('feed also waits while outputs are not delivered: a slow sink holds the input back', async () => {
  let openSink!: () => void;
  const sink = new Promise<void>((resolve) => {
    openSink = resolve;
  });
  const outputs: ConsumedMessage[] = [];
  const embedded = await start(
    configFor(SINGLE_VIEW),
    async (m) => {
      await sink;
      outputs.push(m);
    },
    { maxPendingDownstream: 100 },
  );
  const stream = events(5_000);
  let fed = 0;
  const feeding = (async () => {
    for (const [i, event] of stream.entries()) {
      await feedOne(embedded, event, i + 1);
      fed++;
    }
  })();
  // The feed stops once the undelivered outputs reach the bound (polled: how soon depends on load).
  for (const deadline = Date.now() + 30_000; embedded.pendingDownstream() < 100; ) {
    if (Date.now() > deadline) assert.fail(`the undelivered outputs never reached the bound (fed ${fed})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.ok(fed < stream.length, `feed waits for the sink (fed ${fed})`);
  assert.equal(outputs.length, 0);
  openSink();
  await within(30_000, feeding);
  await embedded.drain();
  await embedded.stop();
  assert.equal(fed, stream.length);
  assert.ok(outputs.length >= 400, `${outputs.length} outputs, at least one per customer`);
});

test('a failed engine makes a waiting feed and drain reject with its error', async () => {
  const config = configFor(SINGLE_VIEW);
  const store = new MemoryStore(compileConfig(config).layout);
  store.write = async () => {
    throw new Error('the disk is on fire');
  };
  const embedded = await start(config, () => {}, { store, maxPendingInput: 10 });
  const stream = events(100);
  // Nothing is ever committed: feed waits at the 10th record until the engine gives up retrying.
  const feeding = (async () => {
    for (const [i, event] of stream.entries()) await feedOne(embedded, event, i + 1);
  })();
  await assert.rejects(within(30_000, feeding), /the disk is on fire/);
  assert.ok(uncommittedInput(embedded) <= 10);
  await assert.rejects(within(30_000, embedded.drain()), /the disk is on fire/);
  await embedded.stop();
});

test.run();
