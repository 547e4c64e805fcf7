import type { Config } from '../../engine/config/index.ts';
import { configFor, type RawConfig } from '../../test/support/configs.ts';
import type { GraphSpec } from '../workloads/index.ts';

/**
 * The benchmark's configuration of a graph, through the real parser, with the defaults a user
 * gets (mode read-delete, compression window 250 ms, commit intervals): nothing tuned for speed.
 * It is the tests' document without their tunings (commit after every batch, 20 ms window).
 * Embedded runs never dial its connections; Kafka-mode runs `patch` in their broker and topics.
 */
export function benchConfig(graph: GraphSpec, patch: (document: RawConfig) => void = () => {}): Config {
  return configFor(graph, (document) => {
    document.id = 'benchmark01';
    for (const consumer of Object.values(document.consumers.config))
      delete (consumer as { commitIntervalMs?: number }).commitIntervalMs;
    delete document.processor.mode;
    delete document.processor.internalUpdates.config.compressionWindowMs;
    patch(document);
  });
}
