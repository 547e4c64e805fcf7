import { pino } from 'pino';
import * as assert from 'uvu/assert';
import { canonicalJson } from '../../../engine/record/key.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { startEngine } from '../../../engine/runtime/engine.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import type { Store } from '../../../engine/store/types.ts';
import { MemoryBroker } from '../../../operators/broker/memory/index.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { test } from '../../support/suite.ts';

/** A real MemoryStore whose first `failures` writes fail, as a MongoDB failover would. */
function failingWrites(store: MemoryStore, failures: number): { store: Store; failed: () => number } {
  let failed = 0;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'write') {
        return async (...args: Parameters<Store['write']>) => {
          if (failed < failures) {
            failed++;
            throw new Error('injected write failure');
          }
          return target.write(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, failed: () => failed };
}

/** The engine of the single view on an in-process broker, over the store `wrap` returns. */
async function startWith(wrap: (memory: MemoryStore) => Store) {
  const compiled = compileConfig(configFor(SINGLE_VIEW));
  const topics = ['customers', 'orders', 'items', 'internal', 'output'];
  const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, 1])) });
  const memory = new MemoryStore(compiled.layout);
  const none = {};
  const engine = await startEngine({
    compiled,
    broker,
    store: wrap(memory),
    logger: pino({ level: 'silent' }),
    clients: { consumer: () => none, producer: none, internalConsumer: none, internalProducer: none },
  });
  const producer = broker.producer();
  await producer.connect();
  return { broker, memory, engine, producer };
}

test('a failing batch is retried, then processed once the store recovers; nothing is lost', async () => {
  let failed = () => 0;
  const { broker, memory, engine, producer } = await startWith((store) => {
    const flaky = failingWrites(store, 2);
    failed = flaky.failed;
    return flaky.store;
  });
  await producer.produce({
    topic: 'customers',
    key: Buffer.from('{"id":1}'),
    value: Buffer.from('{"op":"c","after":{"id":1}}'),
  });
  await producer.produce({
    topic: 'orders',
    key: Buffer.from('{"id":9}'),
    value: Buffer.from('{"op":"c","after":{"id":9,"customerId":1}}'),
  });
  // Polled with a bound that holds on a loaded machine (the retries' backoff takes about a second).
  for (const deadline = Date.now() + 60_000; Date.now() < deadline && !(await engine.idle()); )
    await new Promise((r) => setTimeout(r, 25));
  assert.ok(await engine.idle(), 'drained');
  assert.is(failed(), 2, 'the injected failures happened');
  const stored = await memory.get('orders', [canonicalJson({ id: 9 })]);
  assert.is(stored.size, 1, 'the order was written after the retries');
  const out = broker.messages('output').flat();
  const last = out.filter((m) => m.key?.toString() === '{"id":1}').at(-1);
  const aggregate = JSON.parse(last?.value?.toString() ?? 'null');
  assert.equal(
    aggregate.after.dependencies.orders.map((o: { value: { id: number } }) => o.value.id),
    [9],
  );
  await engine.stop();
  await producer.disconnect();
});

test('a batch that keeps failing stops the engine with the error, its offsets uncommitted', async () => {
  const { broker, engine, producer } = await startWith(
    (store) => failingWrites(store, Number.POSITIVE_INFINITY).store,
  );
  await producer.produce({
    topic: 'customers',
    key: Buffer.from('{"id":1}'),
    value: Buffer.from('{"op":"c","after":{"id":1}}'),
  });
  const error = await engine.done.then(
    () => null,
    (e: Error) => e,
  );
  assert.match(error?.message ?? '', /injected write failure/);
  assert.is(broker.groupLag('streamfold.testEngine01.customers'), 1, 'the failed message is not committed');
  await engine.stop();
  await producer.disconnect();
});

test.run();
