import { createTopics } from '../../local-kafka/admin.ts';
import { javaAndMavenPresent } from '../../local-kafka/classpath.ts';
import { startLocalKafka } from '../../local-kafka/cluster.ts';
import { type CliCommand, UsageError } from '../../services/kit/cli-command.ts';

export const kafkaCommand: CliCommand = {
  name: 'kafka',
  summary: 'run a local Apache Kafka broker (or a 3-node cluster) in the foreground',
  usage: `Usage: streamfold kafka [--brokers 1|3] [--port 9092] [--topics name:partitions,...] [--data-dir DIR]

Starts Apache Kafka (the version local-kafka/pom.xml pins, fetched by Maven on first use: needs
Java 17+ and mvn) on 127.0.0.1, KRaft mode, each node both broker and controller. Prints one line
KAFKA_BROKERS=<host:port,...> on stdout once every broker answers, then runs until Ctrl-C or
SIGTERM, which shut it down cleanly. Topics are not auto-created: name them with --topics.

Options:
  --brokers N     1 (default) or 3 (replication factor 3, min.insync.replicas 2)
  --port P        broker port of the first node, the others follow (default 9092)
  --topics LIST   topics to create, e.g. customers:2,orders:4 (replication: every node)
  --data-dir DIR  keep the data there across runs (default: a temporary folder, removed on exit)
  -h, --help      show this help`,
  options: {
    brokers: { type: 'string' },
    port: { type: 'string' },
    topics: { type: 'string' },
    'data-dir': { type: 'string' },
  },
  positionals: 0,
  async run({ values }, io) {
    const nodes = Number(values.brokers ?? 1);
    if (nodes !== 1 && nodes !== 3) throw new UsageError(`--brokers takes 1 or 3, not ${values.brokers}`);
    const port = Number(values.port ?? 9092);
    if (!Number.isInteger(port) || port < 1 || port > 65535 - nodes)
      throw new UsageError(`--port takes a TCP port, not ${values.port}`);
    const topics = parseTopics(typeof values.topics === 'string' ? values.topics : '');
    if (!javaAndMavenPresent()) {
      io.err('streamfold kafka: java and mvn are needed (Java 17+, Apache Maven): install them first');
      return 1;
    }
    const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
    io.err(`starting Apache Kafka (${nodes} node${nodes > 1 ? 's' : ''}) on 127.0.0.1:${port}…`);
    let cluster: Awaited<ReturnType<typeof startLocalKafka>>;
    try {
      cluster = await startLocalKafka({ nodes, firstPort: port, ...(dataDir ? { dataDir } : {}) });
      await createTopics(cluster.bootstrap, topics);
    } catch (error) {
      io.err(`streamfold kafka: ${(error as Error).message}`);
      return 1;
    }
    io.err(
      `Apache Kafka ${cluster.kafkaVersion} ready; logs: ${cluster.nodes.map((n) => n.logFile).join(', ')}` +
        (Object.keys(topics).length ? `; topics: ${Object.keys(topics).join(', ')}` : ''),
    );
    io.out(`KAFKA_BROKERS=${cluster.bootstrap}`);
    // Signal listeners do not keep Node running, and the broker's processes are unref'd (they
    // must not keep a test alive): this timer holds the command in the foreground until a signal.
    const foreground = setInterval(() => {}, 60_000);
    const signal = await new Promise<NodeJS.Signals>((done) => {
      process.once('SIGINT', () => done('SIGINT'));
      process.once('SIGTERM', () => done('SIGTERM'));
    });
    clearInterval(foreground);
    io.err(`${signal}: stopping Kafka…`);
    await cluster.stop();
    io.err('Kafka stopped');
    return 0;
  },
};

/** `a:2,b:4` → `{a: 2, b: 4}`; a name without a count gets one partition. */
export function parseTopics(list: string): Record<string, number> {
  const topics: Record<string, number> = {};
  for (const entry of list.split(',').filter((e) => e.trim() !== '')) {
    const [name, count = '1', ...rest] = entry.trim().split(':');
    const partitions = Number(count);
    if (!name || rest.length > 0 || !Number.isInteger(partitions) || partitions < 1)
      throw new UsageError(`--topics: "${entry}" is not name[:partitions] with partitions ≥ 1`);
    topics[name] = partitions;
  }
  return topics;
}
