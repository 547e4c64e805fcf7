import { crc32 } from 'node:zlib';

/**
 * The partition a producer gives a keyed record, computed before producing: what lets one
 * message carry many keys that all hash to the partition it is produced to (`engine.md` §6).
 * `partitions` is the topic's partition count.
 */
export type KeyPartitioner = (key: Buffer, partitions: number) => number;

/**
 * Kafka's default key partitioner (the Java client's murmur2, positive part, modulo the
 * partition count): the in-process broker's, so a key lands on the same partition number in
 * embedded mode as it would with Java producers. Keyless records are spread round-robin by the caller.
 */
export function partitionForKey(key: Buffer, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

/** librdkafka's `consistent` partitioner, also its default (`consistent_random`) for keyed records. */
export function crc32Partition(key: Buffer, partitions: number): number {
  return crc32(key) % partitions;
}

/** librdkafka's `fnv1a` partitioner (Sarama's): FNV-1a, absolute value as a signed 32-bit int. */
export function fnv1aPartition(key: Buffer, partitions: number): number {
  let h = 0x811c9dc5 | 0;
  for (const byte of key) h = Math.imul(h ^ byte, 0x01000193);
  return (h < 0 ? -h >>> 0 : h) % partitions;
}

/**
 * The key partitioner of a librdkafka producer configured with `partitioner` (absent: librdkafka's
 * default, `consistent_random`). `random` spreads keyed records too, so no key has a partition of
 * its own: the CRC32 one is used, which keeps each key on one partition all the same.
 */
export function librdkafkaPartitioner(name: unknown): KeyPartitioner {
  switch (name) {
    case 'murmur2':
    case 'murmur2_random':
      return partitionForKey;
    case 'fnv1a':
    case 'fnv1a_random':
      return fnv1aPartition;
    default:
      return crc32Partition;
  }
}

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

export function murmur2(data: Buffer): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3;
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[whole]!, M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h;
}
