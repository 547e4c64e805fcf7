import { createServer } from 'node:net';
import { MongoClient, MongoNetworkError, MongoServerError } from 'mongodb';
import * as assert from 'uvu/assert';
import { keyId } from '../../../engine/record/key.ts';
import { MongoStore, StoreUnavailableError, sinkCollection } from '../../../engine/store/index.ts';
import { emittedCollection } from '../../../engine/store/mongo/names.ts';
import { isTransient, withRetry } from '../../../engine/store/mongo/retry.ts';
import { startMongo } from '../../support/mongo.ts';
import { suite } from '../../support/suite.ts';
import { LAYOUT, storeBehaviour, upsert } from './store-behaviour.ts';

const mongo = await startMongo();
const options = {
  ...LAYOUT,
  configId: 'test',
  url: mongo.url,
  database: mongo.database,
  appName: 'streamfold-test',
};
const store = new MongoStore(options);
const client = new MongoClient(mongo.url);

const behaviour = suite('MongoStore behaviour');
behaviour.before(async () => {
  await store.open();
  await client.connect();
});
storeBehaviour(behaviour, () => store);
await behaviour.run();

const mongoOnly = suite('MongoStore');

mongoOnly('open() creates the §8 indexes, and opening again is harmless', async () => {
  const indexes = async (node: string) =>
    (await client.db(mongo.database).collection(sinkCollection('test', node)).indexes())
      .map((i) => ({ key: i.key, unique: i.unique === true }))
      .sort((a, b) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key)));
  const before = { orders: await indexes('orders'), customers: await indexes('customers') };
  assert.ok(before.orders.some((i) => i.key.__pk === 1 && i.unique));
  assert.ok(
    before.orders.some((i) => i.key['value.customerId'] === 1),
    'foreign path of an in-edge',
  );
  assert.ok(before.orders.some((i) => i.key['value.price'] === 1));
  assert.ok(
    before.customers.some((i) => i.key['value.id'] === 1),
    'local path of an out-edge',
  );
  assert.ok(before.customers.some((i) => i.key['value.budget'] === 1));
  const again = new MongoStore(options);
  await again.open();
  await again.close();
  assert.equal({ orders: await indexes('orders'), customers: await indexes('customers') }, before);
});

mongoOnly(
  'emitted aggregates are {__pk, key, json}; an older {aggregate} document is still read',
  async () => {
    const emitted = client.db(mongo.database).collection(emittedCollection('test', 'customers'));
    await store.writeEmitted('customers', [{ ck: '{"id":5}', key: { id: 5 }, json: '{"value":{"id":5}}' }]);
    const doc = await emitted.findOne({ 'key.id': 5 });
    assert.equal(Object.keys(doc ?? {}).sort(), ['__pk', '_id', 'json', 'key']);
    // As streamfold 0.1 wrote it: the aggregate as a document.
    await emitted.insertOne({
      __pk: keyId('{"id":6}'),
      key: { id: 6 },
      aggregate: { value: { id: 6 }, dependencies: {} },
    });
    const read = await store.getEmitted('customers', ['{"id":5}', '{"id":6}']);
    assert.is(read.get('{"id":5}'), '{"value":{"id":5}}');
    assert.is(read.get('{"id":6}'), '{"value":{"id":6},"dependencies":{}}');
  },
);

mongoOnly('documents are {__pk, key, value}; a lookup of 1,000 parents is one query', async () => {
  const doc = await client
    .db(mongo.database)
    .collection(sinkCollection('test', 'orders'))
    .findOne({ 'key.id': 1 });
  assert.equal(Object.keys(doc ?? {}).sort(), ['__pk', '_id', 'key', 'value']);
  // 300 children only: the stand-in's upserts are slow (about 3 ms each); the lookup is what counts.
  await store.write(
    'orders',
    Array.from({ length: 300 }, (_, i) =>
      upsert({ id: 1000 + i }, { customerId: 1000 + ((i * 7) % 1000), price: i }),
    ),
  );
  const parents = Array.from({ length: 1000 }, (_, i) => ({ id: 1000 + i }));
  const before = store.counters.roundTrips;
  const children = await store.findChildren(LAYOUT.edges[0]!, parents);
  assert.equal(store.counters.roundTrips - before, 1);
  assert.equal(children.filter((list) => list.length === 1).length, 300);
  assert.ok(children.every((list, i) => list.every((r) => r.value.customerId === 1000 + i)));
});

mongoOnly(
  'an unreachable server fails open() with StoreUnavailableError naming the host, not the password',
  async () => {
    const port = await closedPort();
    const unreachable = new MongoStore({
      ...LAYOUT,
      configId: 'x',
      url: `mongodb://admin:s3cr3t-pw@127.0.0.1:${port}/db?directConnection=true`,
      serverSelectionTimeoutMs: 500,
    });
    const started = Date.now();
    const error = await unreachable.open().then(
      () => null,
      (err: Error) => err,
    );
    assert.instance(error, StoreUnavailableError);
    assert.match(error!.message, `MongoDB is unreachable at 127.0.0.1:${port}`);
    assert.not.match(error!.message, 's3cr3t-pw');
    // The driver's own default is 30 s: the bound tells the configured 500 ms from it, with room for load.
    assert.ok(Date.now() - started < 15_000, 'bounded by serverSelectionTimeoutMs');
  },
);

mongoOnly('retries transient errors with backoff, up to the bound; others fail at once', async () => {
  const policy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };
  let calls = 0;
  const flaky = () => (++calls < 3 ? Promise.reject(new MongoNetworkError('reset')) : Promise.resolve('ok'));
  assert.equal(await withRetry(flaky, policy), 'ok');
  assert.equal(calls, 3);
  calls = 0;
  const failing = (error: Error) => () => {
    calls++;
    return Promise.reject(error);
  };
  const down = failing(new MongoNetworkError('down'));
  await withRetry(down, policy).catch(() => {});
  assert.equal(calls, 3, 'gives up after the bound');
  calls = 0;
  const duplicate = failing(new MongoServerError({ code: 11000, errmsg: 'E11000' }));
  await withRetry(duplicate, policy).catch(() => {});
  assert.equal(calls, 1);
  assert.ok(isTransient(new MongoServerError({ code: 189, errmsg: 'stepped down' })));
  assert.not.ok(isTransient(new Error('plain')));
});

mongoOnly.after(async () => {
  await store.close();
  await client.close();
  await mongo.stop();
});

mongoOnly.run();

function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
