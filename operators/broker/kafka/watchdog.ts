/**
 * The client watchdog: reads librdkafka's statistics (`statistics.interval.ms`) of one client and
 * tells when it has been left without any broker to talk to, so that the client can be replaced.
 *
 * Why: librdkafka 2.10 to 2.15 (node-rdkafka 3.6.1 bundles 2.12.0) has a defect,
 * https://github.com/confluentinc/librdkafka/issues/5301: a metadata answer that lists no broker
 * (a broker in controlled shutdown can send one, e.g. during a rolling restart) makes
 * `rd_kafka_metadata_decommission_unavailable_brokers` decommission every broker handle, the
 * bootstrap one included, and the re-bootstrap never starts because it waits for a metadata
 * request, which needs a broker. The client then stays idle for good: a consumer leaves its group
 * when its session expires, a producer's records wait until `message.timeout.ms` and fail. No
 * setting avoids it; the fix proposed upstream (PR #5303) was not merged when this was written.
 *
 * The signal: the statistics list broker handles with their `source`; a client in that state has
 * none that is `learned` (from metadata) or `configured` (bootstrap), only librdkafka's internal
 * and logical ones. A client with brokers that are merely down keeps their handles (it reconnects
 * by itself), so an outage of the whole cluster is not mistaken for it.
 *
 * When the watchdog is no longer needed: once node-rdkafka bundles a librdkafka in which #5301 is
 * fixed, `test/engine/runtime/kafka.test.ts` ("a broker restart mid-run…") and the rolling-restart
 * tests pass with the watchdog off (`createKafkaBroker({ watchdog: false })`) and
 * `streamfold_kafka_clients_replaced_total` stays 0 through them: then it can go.
 */

/** The parts of librdkafka's statistics JSON the watchdog reads (see librdkafka's STATISTICS.md). */
export interface ClientStatistics {
  readonly brokers?: Readonly<Record<string, { readonly source?: string; readonly state?: string }>>;
}

/** Broker handles that point at a real broker: from the bootstrap list, or learned from metadata. */
const USABLE_SOURCES = new Set(['learned', 'configured']);

/** Why a client is stranded, or null when it has a broker handle to work with. */
export function strandedReason(statistics: ClientStatistics): string | null {
  const brokers = Object.values(statistics.brokers ?? {});
  if (brokers.some((broker) => USABLE_SOURCES.has(broker.source ?? ''))) return null;
  return 'no broker left: every broker handle was decommissioned (librdkafka#5301)';
}

export interface WatchdogOptions {
  /** How long a client may stay stranded before it is replaced. */
  readonly strandedAfterMs: number;
  /** The verdict on one statistics snapshot; default {@link strandedReason}. */
  readonly stranded?: (statistics: ClientStatistics) => string | null;
  /** Called once per stranded spell that lasted `strandedAfterMs`, with the reason. */
  readonly onStranded: (reason: string) => void;
  readonly now?: () => number;
}

/**
 * Tracks one client's statistics: `observe` each statistics event's JSON; `onStranded` is called
 * once the client has been stranded for `strandedAfterMs` (a single bad snapshot is not enough:
 * librdkafka may be between two metadata answers), and again only after it recovered in between.
 */
export class ClientWatchdog {
  readonly #options: WatchdogOptions;
  #strandedSince: number | null = null;
  #reported = false;

  constructor(options: WatchdogOptions) {
    this.#options = options;
  }

  observe(json: string): void {
    let statistics: ClientStatistics;
    try {
      statistics = JSON.parse(json) as ClientStatistics;
    } catch {
      return; // Not statistics we can read: no verdict.
    }
    const now = (this.#options.now ?? Date.now)();
    const reason = (this.#options.stranded ?? strandedReason)(statistics);
    if (reason === null) {
      this.#strandedSince = null;
      this.#reported = false;
      return;
    }
    this.#strandedSince ??= now;
    if (!this.#reported && now - this.#strandedSince >= this.#options.strandedAfterMs) {
      this.#reported = true;
      this.#options.onStranded(reason);
    }
  }

  /** Starts afresh, for the client that replaced the stranded one. */
  reset(): void {
    this.#strandedSince = null;
    this.#reported = false;
  }
}

/** A client the watchdog replaced: which kind, and why (for a metric and the log). */
export interface ClientReplacement {
  readonly client: 'consumer' | 'producer';
  readonly reason: string;
}

/** How the broker's clients use the watchdog (`createKafkaBroker({ watchdog })`). */
export interface ClientWatchdogOptions {
  /** How long a client may stay stranded before it is replaced; default 10 s. */
  readonly strandedAfterMs: number;
  /** How often librdkafka reports its statistics, unless the client properties set it; default 1 s. */
  readonly statisticsIntervalMs: number;
  /** The verdict on one statistics snapshot; default {@link strandedReason} (tests force a replacement with it). */
  readonly stranded?: (statistics: ClientStatistics) => string | null;
  /** Told of every replacement (the `streamfold_kafka_clients_replaced_total` metric). */
  readonly onReplaced?: (event: ClientReplacement) => void;
}
