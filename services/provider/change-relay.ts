import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../../operators/clock.ts';
import type { ChangePublisher } from './changes.ts';
import type { ProviderRepository } from './repository.ts';

export interface ResendSummary {
  /** Records whose pending changes were all acknowledged. */
  readonly delivered: number;
  /** Records left pending (the broker failed; the next round tries again). */
  readonly left: number;
}

/**
 * Delivers the changes a write left pending on its record (the outbox), in the order written,
 * then drops them. One provider's deliveries are serialized in this process, so its events reach
 * the topic in order; a change is produced at least once: again only when dropping it failed
 * (MongoDB down after the acknowledgement) or another process resent it (README).
 */
export class ChangeRelay {
  readonly #repository: ProviderRepository;
  readonly #publisher: ChangePublisher;
  readonly #logger: Logger;
  /** The last delivery of each provider, which the next one waits for. */
  readonly #queues = new Map<string, Promise<void>>();
  readonly #events: Counter<'result'>;

  constructor(options: {
    repository: ProviderRepository;
    publisher: ChangePublisher;
    logger: Logger;
    registry: Registry;
  }) {
    this.#repository = options.repository;
    this.#publisher = options.publisher;
    this.#logger = options.logger;
    this.#events = new Counter({
      name: 'streamfold_provider_change_events_total',
      help: 'Provider change events produced: acknowledged, or failed (left pending, produced again later)',
      labelNames: ['result'],
      registers: [options.registry],
    });
  }

  /**
   * Produces every change pending on the provider's record and waits for the acknowledgements;
   * throws the publisher's 503 when the broker does not acknowledge (the changes stay pending).
   */
  deliver(tenantId: string, providerId: string): Promise<void> {
    const key = JSON.stringify([tenantId, providerId]);
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const delivery = previous.catch(() => {}).then(() => this.#deliverNow(tenantId, providerId));
    this.#queues.set(key, delivery);
    const forget = () => {
      if (this.#queues.get(key) === delivery) this.#queues.delete(key);
    };
    delivery.then(forget, forget);
    return delivery;
  }

  async #deliverNow(tenantId: string, providerId: string): Promise<void> {
    const record = await this.#repository.pending(tenantId, providerId);
    // Nothing pending: an earlier delivery took this request's change along.
    if (!record?.pendingChanges?.length) return;
    for (const value of record.pendingChanges) {
      try {
        await this.#publisher.publish({ key: { tenantId, providerId }, value });
      } catch (error) {
        this.#events.inc({ result: 'failed' });
        throw error;
      }
      this.#events.inc({ result: 'acknowledged' });
    }
    // Acknowledged: failing to drop the marker only means the changes are produced again later.
    await this.#repository.settle(record, record.pendingChanges.length).catch((err: unknown) => {
      this.#logger.warn({ err, tenantId, providerId }, 'acknowledged changes not yet marked as sent');
    });
  }

  /**
   * Delivers the changes pending since `cutoff` or before (left by requests whose broker failed,
   * or by a process that stopped). Stops at the first failure: the broker is likely down for all.
   */
  async resendPending(cutoff: Date): Promise<ResendSummary> {
    const records = await this.#repository.pendingSince(cutoff);
    let delivered = 0;
    for (const { tenantId, providerId } of records) {
      try {
        await this.deliver(tenantId, providerId);
        delivered += 1;
      } catch (err) {
        this.#logger.warn({ err, tenantId, providerId }, 'pending provider changes not delivered yet');
        break;
      }
    }
    const summary = { delivered, left: records.length - delivered };
    if (records.length > 0) this.#logger.info(summary, 'pending provider changes resent');
    return summary;
  }
}

export interface ResendLoopOptions {
  readonly resend: (cutoff: Date) => Promise<unknown>;
  readonly clock: Clock;
  /** Time between two rounds, the first right at start; 0: only that one. */
  readonly everyMs: number;
  /**
   * A change younger than this is left to the request that wrote it (in this or another process),
   * so a resend does not race it: the broker's acknowledgement timeout.
   */
  readonly graceMs: number;
  readonly logger: Logger;
}

/** Runs `resend` at start and then every `everyMs` (a round never overlaps the previous) until stopped. */
export function startResendLoop({ resend, clock, everyMs, graceMs, logger }: ResendLoopOptions) {
  let stopped = false;
  let timer: unknown;
  let round: Promise<unknown> = Promise.resolve();
  const tick = () => {
    round = resend(new Date(clock.now() - graceMs))
      .catch((err: unknown) => logger.warn({ err }, 'resending pending provider changes failed'))
      .finally(() => {
        if (!stopped && everyMs > 0) timer = clock.setTimeout(tick, everyMs);
      });
  };
  tick();
  return async function stop(): Promise<void> {
    stopped = true;
    clock.clearTimeout(timer);
    await round;
  };
}
