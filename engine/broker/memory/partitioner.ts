/**
 * Kafka's default key partitioner (the Java client's murmur2, positive part, modulo the
 * partition count), so a key lands on the same partition number in embedded mode as it would
 * with Java producers. Keyless records are spread round-robin by the caller.
 */
export function partitionForKey(key: Buffer, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
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
