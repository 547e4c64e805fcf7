import { createRequire } from 'node:module';
import type { LibrdKafkaError } from 'node-rdkafka';

/** librdkafka codes the broker handles by name. */
export const ERR = {
  NO_OFFSET: -168,
  QUEUE_FULL: -184,
  ASSIGN_PARTITIONS: -175,
  REVOKE_PARTITIONS: -174,
  FATAL: -150,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_PRODUCER_ID_MAPPING: 49,
  UNKNOWN_PRODUCER_ID: 59,
  ILLEGAL_GENERATION: 22,
  UNKNOWN_MEMBER_ID: 25,
  REBALANCE_IN_PROGRESS: 27,
  TRANSPORT: -195,
  ALL_BROKERS_DOWN: -187,
  TIMED_OUT: -185,
  WAIT_COORD: -180,
  REQUEST_TIMED_OUT: 7,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
} as const;

/**
 * A commit's answer when the group rebalanced under it: the commit carried a generation (or a
 * member id) the coordinator has moved on from. Nothing is wrong with the offsets; a commit made
 * in the new generation, of partitions still assigned, succeeds.
 */
export function isRebalanceCommitError(error: { code?: number | undefined }): boolean {
  return (
    error.code === ERR.ILLEGAL_GENERATION ||
    error.code === ERR.UNKNOWN_MEMBER_ID ||
    error.code === ERR.REBALANCE_IN_PROGRESS
  );
}

/**
 * Codes of a commit that failed because the group's coordinator is moving or unreachable (its
 * broker lost, a new one loading the group's offsets), not because of the commit: the same
 * commit succeeds once a coordinator answers, so it is repeated.
 */
const RETRIABLE_COMMIT_CODES = new Set<number>([
  ERR.TRANSPORT,
  ERR.ALL_BROKERS_DOWN,
  ERR.TIMED_OUT,
  ERR.WAIT_COORD,
  ERR.REQUEST_TIMED_OUT,
  ERR.COORDINATOR_LOAD_IN_PROGRESS,
  ERR.COORDINATOR_NOT_AVAILABLE,
  ERR.NOT_COORDINATOR,
]);

export function isRetriableCommitError(error: { readonly code?: number | undefined }): boolean {
  return error.code !== undefined && RETRIABLE_COMMIT_CODES.has(error.code);
}

/**
 * The codes after which an idempotent producer cannot go on, but a new producer (a new producer
 * id) can: the one list, documented in engine/README.md, "Producer recovery".
 * - FATAL (-150): librdkafka's own fatal error, raised for the sequence and epoch errors below.
 * - OUT_OF_ORDER_SEQUENCE_NUMBER (45): the broker and the producer disagree on the sequence.
 * - INVALID_PRODUCER_EPOCH (47): the producer id was fenced by a newer epoch.
 * - INVALID_PRODUCER_ID_MAPPING (49): the broker forgot the producer id (a restarted broker
 *   without that state, or producer state expired); librdkafka does not treat it as fatal and
 *   would fail every record with it forever.
 * - UNKNOWN_PRODUCER_ID (59): the broker no longer has the producer's state for a partition.
 */
const PRODUCER_REPLACING_CODES = new Set<number>([
  ERR.FATAL,
  ERR.OUT_OF_ORDER_SEQUENCE_NUMBER,
  ERR.INVALID_PRODUCER_EPOCH,
  ERR.INVALID_PRODUCER_ID_MAPPING,
  ERR.UNKNOWN_PRODUCER_ID,
]);

/**
 * node-rdkafka hands delivery-report errors to JS without their code (its native layer passes
 * only librdkafka's text, which it then lowercases after the `Broker: ` origin): they are
 * recognised by that text, made by node-rdkafka's own error module from each code.
 */
const rdkafkaErrors = createRequire(import.meta.url)('node-rdkafka/lib/error.js') as {
  create(code: number): Error;
};
/** The text a delivery report carries for `code`: librdkafka's, lowercased after its origin. */
export function deliveryReportText(code: number): string {
  const message = rdkafkaErrors.create(code).message;
  return message.slice(message.indexOf(': ') + 2).toLowerCase();
}
const PRODUCER_REPLACING_MESSAGES = new Set([...PRODUCER_REPLACING_CODES].map(deliveryReportText));

/**
 * An error after which the producer must be replaced: librdkafka's fatal errors and the codes of
 * {@link PRODUCER_REPLACING_CODES}, also in a delivery report. The remedy librdkafka documents is
 * a new producer.
 */
export function isFatalProducerError(error: LibrdKafkaError): boolean {
  return (
    error.isFatal === true ||
    PRODUCER_REPLACING_CODES.has(error.code) ||
    PRODUCER_REPLACING_MESSAGES.has(error.message)
  );
}

/** An Error with librdkafka's code kept, and context a user can act on (which servers, which topic). */
export class KafkaClientError extends Error {
  readonly code: number | undefined;
  constructor(context: string, cause: LibrdKafkaError | Error) {
    super(`${context}: ${cause.message}`, { cause });
    this.name = 'KafkaClientError';
    this.code = 'code' in cause && typeof cause.code === 'number' ? cause.code : undefined;
  }
}
