/**
 * Where a Kafka-mode run's time goes, seen from the broker seam: a preload that wraps the
 * node-rdkafka consumer and producer of `operators/broker/kafka/` and, when the process exits,
 * writes per consumer group and per produced topic what they did to stderr (one JSON line headed
 * `KAFKA_TRACE`). It changes nothing the code under test does, so the same file measures a
 * commit from before a change and one from after it:
 *
 *   node --import tsx --import ./bench/harness/kafka-trace.ts bench/harness/kafka-run.ts '<spec>'
 *
 * Per group (named by the last dot-separated part of its id): polls, the messages they returned
 * (per poll that returned any), the time spent polling and between polls (not polling:
 * backpressure), partitions paused and resumed, commits and how long they took (synchronous ones
 * block the event loop). Per topic (last part of its name): records produced and the time from
 * `produce` to their delivery report, p50/p99.
 */
import { KafkaBrokerConsumer } from '../../operators/broker/kafka/consumer.ts';
import { KafkaBrokerProducer } from '../../operators/broker/kafka/producer.ts';
import type { ProducerRecord, TopicPartition, TopicPartitionOffset } from '../../operators/broker/types.ts';
import { measureWindow } from './measure-window.ts';

interface GroupTrace {
  polls: number;
  nonEmptyPolls: number;
  messages: number;
  pollingMs: number;
  betweenPollsMs: number;
  lastPollEnd: number;
  pausedPartitions: number;
  resumedPartitions: number;
  commits: number;
  commitMs: number;
}

const groups = new Map<string, GroupTrace>();
const acks = new Map<string, number[]>();
/** Counting only between the run's `start` and `end` (set-up, group joins and the final read excluded). */
let counting = false;
let startedAt = 0;
let endedAt = 0;
measureWindow.on('start', () => {
  counting = true;
  startedAt = performance.now();
});
measureWindow.on('end', () => {
  counting = false;
  endedAt = performance.now();
});

const lastPart = (name: string) => name.slice(name.lastIndexOf('.') + 1);
function group(groupId: string): GroupTrace {
  let trace = groups.get(lastPart(groupId));
  if (!trace) {
    trace = {
      polls: 0,
      nonEmptyPolls: 0,
      messages: 0,
      pollingMs: 0,
      betweenPollsMs: 0,
      lastPollEnd: 0,
      pausedPartitions: 0,
      resumedPartitions: 0,
      commits: 0,
      commitMs: 0,
    };
    groups.set(lastPart(groupId), trace);
  }
  return trace;
}

const consumer = KafkaBrokerConsumer.prototype;
const { consume, pause, resume, commit } = consumer;
consumer.consume = async function (this: KafkaBrokerConsumer, max, timeoutMs, signal) {
  if (!counting) return consume.call(this, max, timeoutMs, signal);
  const trace = group(this.groupId);
  const started = performance.now();
  if (trace.lastPollEnd > 0) trace.betweenPollsMs += started - trace.lastPollEnd;
  const messages = await consume.call(this, max, timeoutMs, signal);
  trace.lastPollEnd = performance.now();
  trace.pollingMs += trace.lastPollEnd - started;
  trace.polls++;
  trace.messages += messages.length;
  if (messages.length > 0) trace.nonEmptyPolls++;
  return messages;
};
consumer.pause = function (this: KafkaBrokerConsumer, partitions: readonly TopicPartition[]) {
  if (counting) group(this.groupId).pausedPartitions += partitions.length;
  return pause.call(this, partitions);
};
consumer.resume = function (this: KafkaBrokerConsumer, partitions: readonly TopicPartition[]) {
  if (counting) group(this.groupId).resumedPartitions += partitions.length;
  return resume.call(this, partitions);
};
consumer.commit = async function (this: KafkaBrokerConsumer, offsets: readonly TopicPartitionOffset[]) {
  if (!counting) return commit.call(this, offsets);
  const started = performance.now();
  await commit.call(this, offsets);
  const trace = group(this.groupId);
  trace.commits++;
  trace.commitMs += performance.now() - started;
};

const producer = KafkaBrokerProducer.prototype;
const { produce } = producer;
producer.produce = async function (this: KafkaBrokerProducer, record: ProducerRecord) {
  if (!counting) return produce.call(this, record);
  const started = performance.now();
  const report = await produce.call(this, record);
  const topic = lastPart(record.topic);
  const list = acks.get(topic) ?? [];
  list.push(performance.now() - started);
  acks.set(topic, list);
  return report;
};

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

process.on('exit', () => {
  const seconds = ((endedAt || performance.now()) - startedAt) / 1000;
  const summary = {
    seconds: round(seconds),
    groups: Object.fromEntries(
      [...groups].map(([name, t]) => [
        name,
        {
          polls: t.polls,
          nonEmptyPolls: t.nonEmptyPolls,
          messagesPerNonEmptyPoll: round(t.messages / Math.max(1, t.nonEmptyPolls)),
          pollingMs: round(t.pollingMs, 0),
          betweenPollsMs: round(t.betweenPollsMs, 0),
          pausedPartitions: t.pausedPartitions,
          resumedPartitions: t.resumedPartitions,
          commits: t.commits,
          commitMsMean: round(t.commitMs / Math.max(1, t.commits), 2),
        },
      ]),
    ),
    produced: Object.fromEntries(
      [...acks].map(([topic, list]) => {
        const sorted = list.sort((a, b) => a - b);
        return [
          topic,
          {
            records: list.length,
            ackMsP50: round(percentile(sorted, 0.5)),
            ackMsP99: round(percentile(sorted, 0.99)),
          },
        ];
      }),
    ),
  };
  process.stderr.write(`KAFKA_TRACE ${JSON.stringify(summary)}\n`);
});
