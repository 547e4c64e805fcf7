import { pino } from 'pino';
import * as assert from 'uvu/assert';
import { EmbeddedEngine } from '../../../engine/embedded/engine.ts';
import { parseInputLine } from '../../../engine/embedded/input.ts';
import { canonicalJson } from '../../../engine/record/key.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { test } from '../../support/suite.ts';

test('a move redelivered after a crash that followed its store write still updates the old parent', async () => {
  const outputs: { key: string; after: { dependencies: { orders: unknown[] } } | null }[] = [];
  const embedded = await EmbeddedEngine.start({
    config: configFor(SINGLE_VIEW),
    logger: pino({ level: 'silent' }),
    partitions: 1,
    onOutput: (m) =>
      outputs.push({
        key: m.key?.toString() ?? '',
        after: JSON.parse(m.value?.toString() ?? 'null')?.after ?? null,
      }),
  });
  const feed = (line: object) =>
    embedded.feed(parseInputLine(JSON.stringify(line), 'test', 1, embedded.inputTopics));
  await feed({ topic: 'customers', key: { id: 1 }, value: { op: 'c', after: { id: 1 } } });
  await feed({ topic: 'customers', key: { id: 2 }, value: { op: 'c', after: { id: 2 } } });
  await feed({ topic: 'orders', key: { id: 10 }, value: { op: 'c', after: { id: 10, customerId: 1 } } });
  await embedded.drain();

  // The crash: the move's store write happened, its offset was never committed; it comes again.
  const moved = { id: 10, customerId: 2 };
  await embedded.store.write('orders', [
    { kind: 'upsert', ck: canonicalJson({ id: 10 }), key: { id: 10 }, value: moved },
  ]);
  await feed({
    topic: 'orders',
    key: { id: 10 },
    value: { op: 'u', before: { id: 10, customerId: 1 }, after: moved },
  });
  await embedded.drain();
  await embedded.stop();

  const last = (key: string) => outputs.filter((o) => o.key === key).at(-1)?.after;
  assert.is(last('{"id":1}')?.dependencies.orders.length, 0, 'customer 1 no longer shows the order');
  assert.is(last('{"id":2}')?.dependencies.orders.length, 1, 'customer 2 shows it');
});

test.run();
