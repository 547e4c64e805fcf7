import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { TopicPartition, TopicPartitionOffset } from '../types.ts';
import { isRebalanceCommitError, isRetriableCommitError, type KafkaClientError } from './errors.ts';

/**
 * How long a commit refused by a rebalance is repeated (every {@link COMMIT_RETRY_DELAY_MS}):
 * about as long as a group takes to rebalance while a member finishes its revoked batches.
 */
const REBALANCE_COMMIT_RETRY_MS = 30_000;
const COMMIT_RETRY_DELAY_MS = 100;

/**
 * How long a commit is repeated while the group has no coordinator (with backoff up to 2 s): a
 * new one is elected and has loaded the group's offsets within seconds of a broker's loss
 * (`broker.session.timeout.ms` and a leader election); a minute also covers a loaded machine.
 */
const COORDINATOR_COMMIT_RETRY_MS = 60_000;

export interface CommitRetryContext {
  readonly groupId: string;
  readonly logger: Logger | undefined;
  /** The partitions assigned now (a commit repeated after a rebalance keeps only those). */
  assignment(): TopicPartition[];
  /** The consumer is closing: a commit refused by a rebalance is not repeated. */
  closing(): boolean;
}

/**
 * Commits `offsets` with `commitOnce`, repeating a commit that failed for a reason other than the
 * commit itself:
 * - the group's rebalance refused it (a cooperative rebalance moves the generation on while
 *   partitions are kept): repeated in the new generation for the partitions still assigned, for
 *   up to {@link REBALANCE_COMMIT_RETRY_MS}; a partition handed over meanwhile was committed by
 *   its revocation, and its new owner reads on from there;
 * - the group coordinator could not take it (its broker lost, a new one still loading the
 *   offsets): repeated with backoff for up to {@link COORDINATOR_COMMIT_RETRY_MS}, since a
 *   coordinator moving to another broker is part of a broker's failover, not a failure of the work.
 */
export async function commitWithRetry(
  offsets: readonly TopicPartitionOffset[],
  commitOnce: (offsets: readonly TopicPartitionOffset[]) => Promise<void>,
  context: CommitRetryContext,
): Promise<void> {
  const started = Date.now();
  for (let pending = offsets, attempt = 0; ; attempt++) {
    try {
      return await commitOnce(pending);
    } catch (error) {
      const failure = error as KafkaClientError;
      const elapsed = Date.now() - started;
      if (isRebalanceCommitError(failure) && !context.closing() && elapsed < REBALANCE_COMMIT_RETRY_MS) {
        context.logger?.info(
          { err: error, groupId: context.groupId },
          'commit refused by a rebalance; repeating',
        );
        await sleep(COMMIT_RETRY_DELAY_MS);
        const assigned = new Set(context.assignment().map((p) => `${p.topic}[${p.partition}]`));
        pending = pending.filter((o) => assigned.has(`${o.topic}[${o.partition}]`));
      } else if (isRetriableCommitError(failure) && elapsed < COORDINATOR_COMMIT_RETRY_MS) {
        context.logger?.warn(
          { err: error, groupId: context.groupId, attempt },
          'kafka commit failed, repeating it',
        );
        await sleep(Math.min(2000, 100 * 2 ** attempt));
      } else {
        throw error;
      }
    }
  }
}
