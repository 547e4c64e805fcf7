import { partitionForKey } from '../key-partitioner.ts';
import type { BrokerProducer, ConsumedMessage, DeliveryReport, ProducerRecord } from '../types.ts';
import type { TopicLog } from './log.ts';

/**
 * Appends records to the in-process logs. The stored message doubles as the delivery report
 * (it carries topic, partition and offset), so producing allocates nothing but the message.
 */
export class MemoryProducer implements BrokerProducer {
  constructor(private readonly findTopic: (topic: string) => TopicLog | undefined) {}

  async connect(): Promise<void> {}

  async produce(record: ProducerRecord): Promise<DeliveryReport> {
    return this.append(record);
  }

  append(record: ProducerRecord): ConsumedMessage {
    const topic = this.findTopic(record.topic);
    if (!topic)
      throw new Error(
        `cannot produce to topic "${record.topic}": it does not exist in the in-process broker`,
      );
    const count = topic.partitions.length;
    const partition =
      record.partition ?? (record.key ? partitionForKey(record.key, count) : topic.roundRobin++ % count);
    const log = topic.partitions[partition];
    if (!log)
      throw new Error(`cannot produce to ${record.topic}[${partition}]: the topic has ${count} partition(s)`);
    const message: ConsumedMessage = {
      topic: record.topic,
      partition,
      offset: log.high,
      key: record.key,
      value: record.value,
      headers: record.headers,
      timestamp: record.timestamp ?? Date.now(),
    };
    log.append(message);
    return message;
  }

  async flush(): Promise<void> {}

  async disconnect(): Promise<void> {}
}
