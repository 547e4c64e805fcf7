import * as assert from 'node:assert/strict';
import { KeyedSequencer } from '../../../engine/runtime/keyed-sequencer.ts';
import { test } from '../../support/suite.ts';

/** A piece of work that records when it starts and ends, and ends when told to. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open,
    work: async () => {
      log.push(`${name} start`);
      await opened;
      log.push(`${name} end`);
      return name;
    },
  };
}

test('work on a key waits for earlier work on it; other keys go at once', async () => {
  const sequencer = new KeyedSequencer();
  const log: string[] = [];
  const first = gate(log, 'ab');
  const other = gate(log, 'c');
  const second = gate(log, 'b');
  const runs = [
    sequencer.run(['a', 'b'], first.work),
    sequencer.run(['c'], other.work),
    sequencer.run(['b'], second.work),
  ];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['ab start', 'c start'], 'b waits for ab; c does not');
  other.open();
  await runs[1];
  second.open();
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(!log.includes('b start'), 'b still waits for ab, even once its own gate is open');
  first.open();
  assert.deepEqual(await Promise.all(runs), ['ab', 'c', 'b']);
  assert.deepEqual(log, ['ab start', 'c start', 'c end', 'ab end', 'b start', 'b end']);
  assert.equal(sequencer.size, 0, 'nothing left behind');
});

test('a failed piece of work releases its keys, and the failure is its own', async () => {
  const sequencer = new KeyedSequencer();
  const failed = sequencer.run(['k'], async () => {
    throw new Error('boom');
  });
  const next = sequencer.run(['k'], async () => 'next');
  await assert.rejects(failed, /boom/);
  assert.equal(await next, 'next');
  assert.equal(sequencer.size, 0);
});

test.run();
