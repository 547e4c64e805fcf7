import { clusterMetadata, createTopics } from '../../local-kafka/admin.ts';

/**
 * Creates a run's topics and waits until the broker's metadata lists all of them: a creation is
 * acknowledged before every client sees the topic, and a busy broker can take seconds (a client
 * that asks in between is told "unknown topic or partition").
 */
export async function createRunTopics(
  bootstrap: string,
  topics: Readonly<Record<string, number>>,
  config?: Readonly<Record<string, string>>,
): Promise<void> {
  await createTopics(bootstrap, topics, config ? { config } : {});
  const deadline = Date.now() + 60_000;
  for (;;) {
    const known = (await clusterMetadata(bootstrap, 10_000)).topics;
    const missing = Object.keys(topics).filter((t) => known.get(t) !== topics[t]);
    if (missing.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`topics not in the metadata after 60 s: ${missing.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
