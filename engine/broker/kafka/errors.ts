import type { LibrdKafkaError } from 'node-rdkafka';

/** librdkafka codes the broker handles by name. */
export const ERR = {
  NO_OFFSET: -168,
  QUEUE_FULL: -184,
  ASSIGN_PARTITIONS: -175,
  REVOKE_PARTITIONS: -174,
} as const;

/** An Error with librdkafka's code kept, and context a user can act on (which servers, which topic). */
export class KafkaClientError extends Error {
  readonly code: number | undefined;
  constructor(context: string, cause: LibrdKafkaError | Error) {
    super(`${context}: ${cause.message}`, { cause });
    this.name = 'KafkaClientError';
    this.code = 'code' in cause && typeof cause.code === 'number' ? cause.code : undefined;
  }
}
