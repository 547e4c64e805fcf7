import type { Broker, ConsumedMessage } from '../../operators/broker/types.ts';

/**
 * Reads a finished run's whole output topic (or topics) with a fresh consumer group, after the
 * measured part (so its cost is in no measured figure), passing each message to `each`; how many
 * there were.
 */
export async function readOutput(
  broker: Broker,
  topic: string | readonly string[],
  groupId: string,
  each: (message: ConsumedMessage) => void,
): Promise<number> {
  const topics = typeof topic === 'string' ? [topic] : topic;
  const reader = broker.consumer({ groupId });
  await reader.connect();
  let read = 0;
  const take = (batch: readonly ConsumedMessage[]) => {
    for (const message of batch) each(message);
    read += batch.length;
  };
  try {
    reader.subscribe(topics);
    const assignedBy = Date.now() + 60_000;
    while (reader.assignment().length === 0) {
      if (Date.now() > assignedBy)
        throw new Error(`no partition of ${topics.join(', ')} assigned within 60 s`);
      take(await reader.consume(10_000, 100));
    }
    // Nothing is committed in this group: each partition's lag is its whole length.
    const total = (await reader.lag()).reduce((sum, p) => sum + p.lag, 0);
    const readBy = Date.now() + 60_000 + total;
    while (read < total) {
      if (Date.now() > readBy)
        throw new Error(`read ${read} of the ${total} messages of ${topics.join(', ')}`);
      take(await reader.consume(10_000, 200));
    }
    return read;
  } finally {
    await reader.disconnect();
  }
}
