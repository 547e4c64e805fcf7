/**
 * The Kafka-mode benchmark (`bench/kafka.ts`) end to end on tiny sizes, on the test run's broker:
 * every event goes through the echo, the engine answers, the Kafka Streams peer answers the same,
 * and the tables carry the ratios.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { KafkaRunResult } from '../../bench/harness/kafka-run.ts';
import { peerToolsPresent } from '../../bench/harness/kafka-streams-peer.ts';
import { KAFKA_COLUMNS, REST_COLUMNS } from '../../bench/report/kafka-table.ts';
import { type KafkaFixture, realKafka, startKafka } from '../support/kafka.ts';
import { test, when } from '../support/suite.ts';

const EVENTS = 400;
/** The Kafka Streams peer's rows need a JDK (javac) and Maven besides the broker. */
const peer = peerToolsPresent();
let kafka: KafkaFixture | undefined;
const resultsDir = mkdtempSync(join(tmpdir(), 'bench-kafka-'));

test.before(async () => {
  if (await realKafka()) kafka = await startKafka({ topics: {} });
});
test.after(async () => {
  await kafka?.stop();
  rmSync(resultsDir, { recursive: true, force: true });
});

function bench(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/kafka.ts', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((done) => child.once('exit', (code) => done({ code, out })));
}

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());

when(await realKafka(), 'the benchmark measures a real broker, not the stand-in')(
  "W4 on the engine, the raw pipe, the 2-hop echo and the broker's tools, paced, and the REST route: outputs, ratios and results",
  async () => {
    const { code, out } = await bench(
      [
        '--workloads=W4',
        '--stores=memory',
        `--streams=${peer ? 'memory' : ''}`,
        ...(peer ? [] : ['--no-broker-limit']),
        `--events=${EVENTS}`,
        '--paced-events=200',
        '--repeat=1',
        '--requests=100',
        '--concurrency=8',
        `--results-dir=${resultsDir}`,
      ],
      { KAFKA_BROKERS: (kafka as KafkaFixture).brokers },
    );
    assert.is(code, 0, out);
    const lines = out.split('\n');
    const header = cells(lines.find((l) => l.startsWith('| run |')) ?? '');
    assert.equal(header, [...KAFKA_COLUMNS]);
    const ratio = header.indexOf('x raw pipe');
    const engine = cells(lines.find((l) => l.startsWith('| W4 memory |')) ?? '');
    assert.ok(Number(engine[ratio]) > 0, `the engine's ratio to the raw pipe: ${engine[ratio]}`);
    const echoRow = cells(lines.find((l) => l.startsWith('| W4 2-hop echo (our operators) |')) ?? '');
    assert.ok(Number(echoRow[ratio]) > 0, `the echo's ratio to the raw pipe: ${echoRow.join(' | ')}`);
    assert.ok(
      Number(engine[header.indexOf('x raw pipe CPU')]) > 0,
      `the engine's CPU against the raw pipe's: ${engine.join(' | ')}`,
    );
    assert.ok(
      lines.some((l) => /^W4 throughput >= 0\.6 x the raw pipe +(met|missed) /.test(l)),
      out,
    );
    assert.ok(
      lines.some((l) => /^\| W4 memory @\d+\/s \|/.test(l)),
      'a paced engine row',
    );
    if (peer) {
      // The Kafka Streams peer's row, the engine's ratio to it, and its outputs checked equal.
      assert.ok(
        Number(engine[header.indexOf('x Kafka Streams (memory)')]) > 0,
        `x Kafka Streams: ${engine.join(' | ')}`,
      );
      // Apache Kafka's own tools on the workload's records.
      for (const tool of ['ProducerPerformance', 'ConsumerPerformance']) {
        const limit = cells(lines.find((l) => l.startsWith(`| W4 ${tool}`)) ?? '');
        assert.equal(Number(limit[1]), EVENTS, `${tool} handled every record: ${limit.join(' | ')}`);
        assert.ok(Number((limit[2] ?? '').replace(/,/g, '')) > 0, `${tool} records/s`);
      }
      assert.ok(lines.some((l) => l.startsWith('| W4 Kafka Streams (memory) |')));
      assert.ok(
        lines.some((l) =>
          /^- W4 Kafka Streams \(memory\) vs the engine \(memory\): equal: \d+ keys$/.test(l),
        ),
        out,
      );
    }
    assert.equal(cells(lines.find((l) => l.startsWith('| path |')) ?? ''), [...REST_COLUMNS]);
    const rest = cells(lines.find((l) => l.startsWith('| HTTP POST')) ?? '');
    assert.ok(
      Number(rest[REST_COLUMNS.indexOf('x bare produce loop')]) > 0,
      `REST ratio: ${rest.join(' | ')}`,
    );

    const file = /results: (.+)/.exec(out)?.[1] as string;
    const { runs } = JSON.parse(readFileSync(file, 'utf8')) as { runs: KafkaRunResult[] };
    const echo = runs.find((r) => r.spec.target === 'echo' && !r.spec.rate);
    const raw = runs.find((r) => r.spec.target === 'raw' && !r.spec.rate);
    assert.is(raw?.outputMessages, EVENTS, 'the raw pipe passes every event through both hops once');
    const memory = runs.find((r) => r.spec.target === 'memory' && !r.spec.rate);
    assert.is(echo?.outputMessages, EVENTS, 'the echo echoes every event once');
    // W4 has one output per live head key per compression window: at least one, at most one per event.
    assert.ok(
      memory && memory.outputMessages > 0 && memory.outputMessages <= EVENTS,
      `${memory?.outputMessages}`,
    );
    assert.ok(memory && memory.cpuMicrosPerEvent > 0);
    const paced = runs.find((r) => r.spec.target === 'memory' && r.spec.rate);
    assert.ok((paced?.latencyMs?.samples ?? 0) > 0, 'paced latencies sampled');
  },
);

test.run();
