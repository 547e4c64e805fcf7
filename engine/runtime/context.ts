import type { Logger } from 'pino';
import type { BrokerProducer } from '../../operators/broker/types.ts';
import type { InternalUpdatesRoute } from '../internal-updates/route.ts';
import type { EngineMetrics } from '../metrics/index.ts';
import type { OutputMode } from '../output/messages.ts';
import type { Store } from '../store/types.ts';
import type { Topology } from '../topology/index.ts';

/** What the batch handlers share: the state store, the producers and the settings. */
export interface RuntimeContext {
  readonly store: Store;
  readonly topology: Topology;
  readonly mode: OutputMode;
  readonly outputTopic: string;
  readonly internalTopic: string;
  /** How internal updates are grouped into messages per partition of `internalTopic`. */
  readonly internalRoute: InternalUpdatesRoute;
  /** Writes outputs and dead letters. */
  readonly producer: BrokerProducer;
  /** Writes internal updates (its own properties: `internalUpdates.config.producer`). */
  readonly internalProducer: BrokerProducer;
  /** Dead-letter topic per node, when configured. */
  readonly deadLetterTopics: ReadonlyMap<string, string>;
  readonly metrics: EngineMetrics;
  readonly logger: Logger;
}
