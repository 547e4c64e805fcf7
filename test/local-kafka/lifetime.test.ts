/**
 * A broker ends with the process that started it, SIGKILL included (`local-kafka/lifetime.ts`):
 * a Node process that started one — a test's `own` broker, `streamfold kafka` — is SIGKILLed, and
 * within a bounded wait no process of that broker (its JVM, its watcher) is left.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { freePorts } from '../../local-kafka/cluster.ts';
import { backends } from '../support/backends.ts';
import { test, when } from '../support/suite.ts';
import { until } from '../support/until.ts';

/** A JVM start plus Maven's classpath check on two busy cores. */
const START_MS = 120_000;
/** "A few seconds": the watcher reads end-of-file at once; the kernel's SIGKILL takes milliseconds. */
const GONE_MS = 10_000;
const FIXTURE = 'test/local-kafka/fixtures/broker-holder.ts';

/** Live processes (zombies excluded) whose command line mentions `text`: pid → command line. */
function processesMentioning(text: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = /\) (\S)/.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1];
      if (command.includes(text) && state !== 'Z') found.set(Number(entry), command.trim());
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

function startHolder(args: readonly string[]) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  return { child, out: () => out, err: () => err };
}

/**
 * SIGKILLs `holder` alone (not its group: a process dies, nobody cleans up after it) and waits
 * until no process mentioning `dataDir` and no watcher of `jvmPids` is left.
 */
async function killAndExpectNoBroker(holder: ChildProcess, dataDir: string, jvmPids: number[]) {
  const broker = processesMentioning(dataDir);
  for (const pid of jvmPids) assert.ok(broker.has(pid), `JVM ${pid} runs before the kill`);
  const exited = once(holder, 'exit');
  process.kill(holder.pid!, 'SIGKILL');
  await exited;
  const killed = Date.now();
  const left = () => {
    const remaining = processesMentioning(dataDir);
    for (const [pid, command] of processesMentioning('streamfold-lifetime'))
      if (jvmPids.some((jvm) => command.endsWith(` ${jvm}`))) remaining.set(pid, command);
    return remaining;
  };
  await until(
    'no process of the broker is left',
    () => left().size === 0,
    GONE_MS,
    () => [...left()].map(([pid, command]) => `\n  ${pid} ${command.slice(0, 160)}`).join(''),
  );
  console.log(`  every process of the broker gone ${Date.now() - killed} ms after the SIGKILL`);
}

/** Whatever happened, nothing of the test is left running or on disk. */
function cleanUp(holder: ChildProcess, dataDir: string | undefined) {
  if (holder.exitCode === null && holder.signalCode === null) process.kill(holder.pid!, 'SIGKILL');
  if (!dataDir) return;
  for (const pid of processesMentioning(dataDir).keys()) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
}

const local = (await backends()).kafka.kind === 'local';
const localKafka = when(local, 'needs the local Apache Kafka (java and mvn, no KAFKA_BROKERS or Docker)');

localKafka('a test process that started its own broker is SIGKILLed: no JVM of it is left', async () => {
  const holder = startHolder(['--import', 'tsx', FIXTURE]);
  let started: { pids: number[]; dataDir: string } | undefined;
  try {
    await until('the holder printed its broker', () => holder.out().includes('\n'), START_MS, holder.err);
    started = JSON.parse(holder.out()) as { pids: number[]; dataDir: string };
    assert.equal(started.pids.length, 1);
    await killAndExpectNoBroker(holder.child, started.dataDir, started.pids);
  } finally {
    cleanUp(holder.child, started?.dataDir);
  }
});

localKafka('`streamfold kafka` is SIGKILLed: no JVM of it is left', async () => {
  const [port] = await freePorts(1);
  const cli = startHolder(['bin/streamfold.js', 'kafka', '--port', String(port)]);
  let dataDir: string | undefined;
  try {
    await until('the KAFKA_BROKERS line', () => /KAFKA_BROKERS=/.test(cli.out()), START_MS, cli.err);
    dataDir = /logs: (\S+)\/node-1\.log/.exec(cli.err())?.[1];
    assert.ok(dataDir, cli.err());
    const jvms = [...processesMentioning(dataDir).keys()];
    assert.equal(jvms.length, 1, 'one JVM: the broker');
    await killAndExpectNoBroker(cli.child, dataDir, jvms);
  } finally {
    cleanUp(cli.child, dataDir);
  }
});

test.run();
