import * as assert from 'uvu/assert';
import type { KafkaRunResult } from '../../bench/harness/kafka-run.ts';
import { inputLatencies, percentile } from '../../bench/harness/latency.ts';
import type { RunResult } from '../../bench/harness/types.ts';
import { niceMax, renderChart } from '../../bench/report/chart.ts';
import { kafkaTargetVerdicts } from '../../bench/report/kafka-targets.ts';
import { formatMarkdownTable, formatTable } from '../../bench/report/table.ts';
import { checkTargets, formatContext, formatTargets } from '../../bench/report/targets.ts';
import { test } from '../support/suite.ts';

test('percentile: nearest rank, null when empty', () => {
  assert.is(percentile([], 0.5), null);
  assert.is(percentile([7], 0.99), 7);
  const values = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.is(percentile(values, 0.5), 50);
  assert.is(percentile(values, 0.99), 99);
  assert.is(percentile(values, 1), 100);
});

test('latency: first output of the head at or after the input; orphans and unanswered', () => {
  const times = [100, 105, 110, 200, 300];
  const heads = [1, 1, 2, -1, 1];
  const outputs = [
    { head: 1, time: 90 }, // before every input: answers none
    { head: 1, time: 120 },
    { head: 2, time: 111 },
  ];
  const summary = inputLatencies(times, heads, outputs);
  // head 1: 100 -> 120 (20), 105 -> 120 (15); head 2: 110 -> 111 (1); 300 unanswered; -1 skipped.
  assert.is(summary.samples, 3);
  assert.is(summary.unanswered, 1);
  assert.is(summary.p50, 15);
  assert.is(summary.max, 20);
  assert.equal(inputLatencies([], [], []), { samples: 0, unanswered: 0, p50: null, p99: null, max: null });
});

test('chart: round axis maxima and one bar per value, nulls left out', () => {
  assert.is(niceMax(0), 1);
  assert.is(niceMax(7), 10);
  assert.is(niceMax(12_000), 20_000);
  assert.is(niceMax(50), 50);
  const svg = renderChart(
    'title <&>',
    [
      { workload: 'W1', series: 'ceiling', value: 100_000 },
      { workload: 'W1', series: 'memory', value: 40_000 },
      { workload: 'W2', series: 'memory', value: null },
    ],
    [{ workload: 'W1', series: 'memory', value: 300 }],
  );
  assert.ok(svg.startsWith('<svg'));
  assert.ok(svg.includes('title &lt;&amp;&gt;'));
  assert.is((svg.match(/<rect x=/g) ?? []).length, 3 + 2, 'three bars and two legend squares');
});

test('table: ratio to the ceiling, dashes for missing figures', () => {
  const result = (target: 'ceiling' | 'memory', perSecond: number): RunResult => ({
    spec: { workload: 'W1', target, events: 1000, seed: 1, scale: 0, partitions: 4 },
    seconds: 1000 / perSecond,
    cpuMicrosPerEvent: 1e6 / perSecond,
    loopBusy: 0.431,
    inputPerSecond: perSecond,
    outputMessages: 10,
    outputPerSecond: 10,
    outputBytesPerEvent: 12.5,
    latencyMs: { p50: null, p99: 12, max: 12, samples: 1, unanswered: 0 },
    roundTripsPerEvent: target === 'ceiling' ? null : 0.01,
    internalUpdates: null,
    childUpdatesPerRecompute: null,
    peakRssMb: 100,
  });
  const text = formatTable([
    { label: 'W1 ceiling', result: result('ceiling', 80_000), ceiling: null },
    { label: 'W1 memory', result: result('memory', 20_000), ceiling: 80_000, range: [18_500, 24_000] },
    { label: 'W1 mongo', result: { ...result('memory', 100), standIn: true }, ceiling: 80_000 },
  ]);
  const [header, , ceilingLine, memoryLine, standInLine] = text.split('\n');
  assert.is(standInLine?.split(/\s{2,}/)[4], '-', "the stand-in's speed is no ratio");
  assert.ok(header?.includes('x ceiling'));
  assert.ok(memoryLine?.includes('0.25'));
  assert.ok(memoryLine?.includes('20,000'));
  assert.ok(memoryLine?.includes(' 50.0 '), 'CPU per event');
  assert.ok(/ 13 +50\.0 +43 /.test(memoryLine ?? ''), 'output bytes and CPU per event, loop busy %');
  assert.ok(header?.includes('loop busy %'));
  assert.ok(memoryLine?.includes('18,500-24,000'), 'the range of a median row');
  assert.is(ceilingLine?.split(/\s{2,}/)[3], '-', 'no range for a single run');

  const markdown = formatMarkdownTable([
    { label: 'W1 memory', result: result('memory', 20_000), ceiling: 80_000, range: [18_500, 24_000] },
  ]).split('\n');
  assert.is(markdown.length, 3);
  assert.ok(markdown[0]?.startsWith('| run | events | events/s | range | x ceiling |'));
  assert.match(markdown[1] ?? '', /^\| --- (\| --- )+\|$/);
  assert.ok(markdown[2]?.startsWith('| W1 memory | 1,000 | 20,000 | 18,500-24,000 | 0.25 |'));
});

test('table: the 2-hop echo against the ceiling, engine rows against both', () => {
  const result = (perSecond: number, hops?: number): RunResult => ({
    spec: {
      workload: 'W1',
      target: hops ? 'ceiling' : 'memory',
      events: 1000,
      seed: 1,
      scale: 0,
      partitions: 4,
      ...(hops ? { hops } : {}),
    },
    seconds: 1000 / perSecond,
    cpuMicrosPerEvent: 1,
    loopBusy: 1,
    inputPerSecond: perSecond,
    outputMessages: 10,
    outputPerSecond: 10,
    outputBytesPerEvent: 10,
    latencyMs: { p50: null, p99: null, max: null, samples: 0, unanswered: 0 },
    roundTripsPerEvent: null,
    internalUpdates: null,
    childUpdatesPerRecompute: null,
    peakRssMb: 100,
  });
  const lines = formatTable([
    { label: 'W1 ceiling', result: result(80_000, 1), ceiling: null },
    { label: 'W1 2-hop echo', result: result(40_000, 2), ceiling: 80_000 },
    { label: 'W1 memory', result: result(20_000), ceiling: 80_000, twoHopEcho: 40_000 },
    { label: 'W1 memory, no echo run', result: result(20_000), ceiling: 80_000 },
  ]).split('\n');
  const columns = (line: string | undefined) => line?.split(/\s{2,}/) ?? [];
  assert.equal(columns(lines[0]).slice(4, 6), ['x ceiling', 'x 2-hop echo']);
  assert.equal(columns(lines[2]).slice(4, 6), ['-', '-'], 'the ceiling against nothing');
  assert.equal(columns(lines[3]).slice(4, 6), ['0.50', '-'], 'the echo against the ceiling only');
  assert.equal(columns(lines[4]).slice(4, 6), ['0.25', '0.50']);
  assert.equal(columns(lines[5]).slice(4, 6), ['0.25', '-']);
});

test('context: the 2-hop echo against the ceiling and the engine against the echo', () => {
  const engine = { inputPerSecond: 30_000 } as RunResult;
  assert.is(
    formatContext({ w1Memory: engine, w1Ceiling: 200_000, w1TwoHopEcho: 100_000 }),
    "context: W1 2-hop echo (the engine's hops, nothing else) = 0.50 x ceiling; W1 memory = 0.30 x the 2-hop echo",
  );
  assert.is(
    formatContext({ w1Ceiling: 200_000, w1TwoHopEcho: 100_000 }),
    "context: W1 2-hop echo (the engine's hops, nothing else) = 0.50 x ceiling",
  );
  assert.is(
    formatContext({ w1Memory: engine, w1Ceiling: 200_000 }),
    'context: the W1 2-hop echo was not run',
  );
});

test('targets: each verdict from its own run, a missing run is "not run", below 0.25 x is flagged', () => {
  const run = (patch: Partial<RunResult>): RunResult =>
    ({
      spec: { workload: 'W1', target: 'memory', events: 1000, seed: 1, scale: 0, partitions: 4 },
      seconds: 1,
      cpuMicrosPerEvent: 1000,
      loopBusy: 0.5,
      inputPerSecond: 1000,
      outputMessages: 10,
      outputPerSecond: 10,
      outputBytesPerEvent: 100,
      latencyMs: { p50: 1, p99: 1, max: 1, samples: 1, unanswered: 0 },
      roundTripsPerEvent: 0.01,
      internalUpdates: null,
      childUpdatesPerRecompute: null,
      peakRssMb: 100,
      ...patch,
    }) as RunResult;
  const checks = checkTargets({
    w1Memory: run({ inputPerSecond: 20_000 }),
    w1Ceiling: 100_000,
    w1TwoHopEcho: 40_000,
    w4Memory: run({ inputPerSecond: 32_000 }),
    w4TwoHopEcho: 40_000,
    w1Naive: 8_000,
    w3Memory: run({ inputPerSecond: 9_000, childUpdatesPerRecompute: 5 }),
    w3Naive: 1_000,
    w1Mongo: run({ roundTripsPerEvent: 0.02 }),
    halfRate: run({ latencyMs: { p50: 200, p99: 351, max: 400, samples: 10, unanswered: 0 } }),
    compressionWindowMs: 250,
  });
  assert.equal(
    checks.map((c) => [c.verdict, c.measured]),
    [
      ['missed', '0.50 x (0.20 x ceiling)'],
      ['met', '0.80 x'],
      ['missed', '2.5 x'],
      ['missed', '9.0 x'],
      ['met', '0.0200'],
      ['missed', '351 ms'],
      ['met', '5.0'],
      ['not run', '-'],
    ],
  );
  assert.equal(
    checkTargets({ compressionWindowMs: 250, w1Memory: run({}), w1TwoHopEcho: 500 })[0]?.measured,
    '2.00 x',
    'no ceiling in the run: the echo ratio alone',
  );
  assert.ok(checks[5]?.target.includes('350 ms'), 'the bound follows the compression window');

  // The million-event run names its workload and the stand-in unless it is W1 on MongoDB.
  const million = (workload: 'W1' | 'W3', peakRssMb: number, standIn: boolean) =>
    checkTargets({
      compressionWindowMs: 250,
      million: run({ spec: { ...run({}).spec, workload, target: 'mongo' }, peakRssMb, standIn }),
    })[7];
  assert.equal(million('W3', 212, true), {
    target: '1M events on MongoStore: peak RSS <= 250 MB',
    measured: '212 MB (W3, stand-in)',
    verdict: 'met',
  });
  assert.is(million('W1', 251, false)?.measured, '251 MB');
  assert.is(million('W1', 251, false)?.verdict, 'missed');
  assert.match(formatTargets(checks), /W3 child updates per recompute >= 5\s+met\s+5\.0/);
});

test('Kafka-mode targets: ratios to the raw pipe and to Kafka Streams, CPU, p99 and RSS; missing anchors are "not run"', () => {
  const run = (inputPerSecond: number, cpuMicrosPerEvent: number, p99: number | null = null) =>
    ({
      inputPerSecond,
      cpuMicrosPerEvent,
      latencyMs: p99 === null ? null : { p99 },
    }) as unknown as KafkaRunResult;
  const lines = kafkaTargetVerdicts({
    workloads: new Map([
      ['W1', { engine: run(30_000, 40), anchors: { raw: run(40_000, 30), streamsMemory: run(10_000, 400) } }],
      ['W4', { engine: run(20_000, 90), anchors: { raw: run(40_000, 40), streamsMemory: run(25_000, 300) } }],
    ]),
    paced: { workload: 'W1', result: run(15_000, 50, 351) },
    rssMillionMb: 280,
  });
  const line = (start: string) => lines.find((l) => l.startsWith(start)) ?? '';
  assert.match(line('W1 throughput >= 0.6 x the raw pipe'), /met +0\.75 x$/);
  assert.match(line('W4 throughput >= 0.6 x the raw pipe'), /missed +0\.50 x$/);
  assert.match(line('W1 throughput > Kafka Streams (memory)'), /met +3\.00 x$/);
  assert.match(line('W4 throughput > Kafka Streams (memory)'), /missed +0\.80 x$/);
  assert.match(line('W1 throughput > Kafka Streams (rocksdb)'), /not run$/);
  assert.match(line('W1 CPU per event <= 2 x'), /met +1\.33 x$/);
  assert.match(line('W4 CPU per event <= 2 x'), /missed +2\.25 x$/);
  assert.match(line('W1 p99 at half rate <= 350 ms'), /missed +351 ms$/);
  assert.match(line('1M events in Kafka mode'), /met +280 MB$/);
  assert.match(
    kafkaTargetVerdicts({ workloads: new Map() }).join('\n'),
    /p99 at half rate <= 350 ms +not run/,
  );
});

test.run();
