import * as assert from 'uvu/assert';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { counterValue, create, runEvents } from '../../support/embedded.ts';
import { test } from '../../support/suite.ts';

const base = configFor(SINGLE_VIEW);
const withDeadLetters = configFor(SINGLE_VIEW, (d) => {
  d.consumers.config.orders.deadLetterTopic = 'orders-dlq';
});

const poison = [
  { topic: 'orders', rawKey: '{"id":', rawValue: '{"op":"c","after":{"id":1}}' },
  { topic: 'orders', key: [1, 2], value: { op: 'c', after: { id: 2 } } },
  { topic: 'orders', key: { id: 3 }, rawValue: 'not json at all' },
  { topic: 'orders', key: { id: 4 }, value: { op: 'x', after: { id: 4 } } },
  { topic: 'orders', key: { id: 5 }, value: { op: 'u', after: null } },
];

test('poison messages are skipped and counted per reason; later messages still flow', async () => {
  const events = [
    create('customers', { id: 1 }),
    ...poison,
    create('orders', { id: 10, customerId: 1 }),
    { topic: 'orders', key: { id: 11 }, value: null },
  ];
  const run = await runEvents(base, events, { partitions: 1 });
  const count = (reason: string) =>
    counterValue(run.metrics, 'streamfold_invalid_messages_total', { node: 'orders', reason });
  assert.is(await count('invalid-key-json'), 1);
  assert.is(await count('key-not-object'), 1);
  assert.is(await count('invalid-value-json'), 1);
  assert.is(await count('unknown-op'), 1);
  assert.is(await count('after-not-object'), 1);
  assert.is(await counterValue(run.metrics, 'streamfold_tombstones_total', { node: 'orders' }), 1);
  const after = run.last.get('{"id":1}')?.after as { dependencies: { orders: { value: { id: number } }[] } };
  assert.equal(
    after.dependencies.orders.map((o) => o.value.id),
    [10],
    'the valid order after the poison is aggregated',
  );
});

test('with a dead-letter topic, each poison message lands there with its reason and source', async () => {
  const run = await runEvents(withDeadLetters, [...poison, create('orders', { id: 10, customerId: 1 })], {
    partitions: 1,
    keep: true,
  });
  const reader = run.embedded.broker.consumer({ groupId: 'dlq-reader' });
  await reader.connect();
  reader.subscribe(['orders-dlq']);
  const letters = [];
  for (let i = 0; i < 50 && letters.length < poison.length; i++)
    letters.push(...(await reader.consume(100, 50)));
  await reader.disconnect();
  await run.embedded.stop();
  assert.is(letters.length, poison.length);
  const header = (h: readonly Record<string, string | Buffer>[] | undefined, name: string) =>
    String(h?.find((x) => name in x)?.[name] ?? '');
  assert.equal(
    letters.map((m) => header(m.headers, 'streamfold-error-reason')),
    ['invalid-key-json', 'key-not-object', 'invalid-value-json', 'unknown-op', 'after-not-object'],
  );
  assert.is(letters[2]?.value?.toString(), 'not json at all', 'the original bytes are kept');
  assert.match(header(letters[0]?.headers, 'streamfold-source'), /^orders\/0\/\d+$/);
});

test.run();
