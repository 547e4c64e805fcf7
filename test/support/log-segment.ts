/**
 * The record-batch headers of a partition's log segment, read from a local broker's data folder:
 * what the broker stored, as Kafka's `kafka-dump-log.sh` shows it. An idempotent producer's
 * batches carry its producer id and epoch; other producers' carry -1.
 *
 * @example
 *   const batches = segmentBatches(join(cluster.dataDir, 'node-1'), 'orders', 0);
 *   batches.every((b) => b.producerId >= 0n);
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BatchHeader {
  readonly baseOffset: bigint;
  readonly records: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

/** The first segment of `topic`'s `partition` (record batch format v2, Kafka ≥ 0.11). */
export function segmentBatches(logDir: string, topic: string, partition: number): BatchHeader[] {
  const data = readFileSync(join(logDir, `${topic}-${partition}`, '00000000000000000000.log'));
  const batches: BatchHeader[] = [];
  // Layout: baseOffset int64, batchLength int32 (bytes after it), leaderEpoch int32, magic int8,
  // crc int32, attributes int16, lastOffsetDelta int32, two int64 timestamps, producerId int64,
  // producerEpoch int16, baseSequence int32, record count int32.
  for (let at = 0; at + 61 <= data.length; at += 12 + data.readInt32BE(at + 8)) {
    if (data.readInt8(at + 16) !== 2) throw new Error(`${topic}-${partition}: batch at byte ${at} is not v2`);
    batches.push({
      baseOffset: data.readBigInt64BE(at),
      producerId: data.readBigInt64BE(at + 43),
      producerEpoch: data.readInt16BE(at + 51),
      baseSequence: data.readInt32BE(at + 53),
      records: data.readInt32BE(at + 57),
    });
  }
  return batches;
}
