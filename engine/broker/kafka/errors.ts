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
  UNKNOWN_PRODUCER_ID: 59,
} as const;

const FATAL_PRODUCER_CODES = new Set<number>([
  ERR.FATAL,
  ERR.OUT_OF_ORDER_SEQUENCE_NUMBER,
  ERR.INVALID_PRODUCER_EPOCH,
  ERR.UNKNOWN_PRODUCER_ID,
]);

/**
 * An error after which an idempotent producer cannot go on: librdkafka's fatal errors and the
 * sequence/epoch errors that raise them. The remedy librdkafka documents is a new producer.
 */
export function isFatalProducerError(error: LibrdKafkaError): boolean {
  return error.isFatal === true || FATAL_PRODUCER_CODES.has(error.code);
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
