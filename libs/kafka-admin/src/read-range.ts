import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { letGo } from '@app/failures';
import { fetchWaitMs } from '@app/kafka';
import type { ReadMessage } from './read-to-end';

/** Offsets `from` (inclusive) to `to` (exclusive) of one partition. */
export interface OffsetRange {
  partition: number;
  from: number;
  to: number;
}

export interface RangeReadOptions {
  /** The reading principal's allowed group names (`console-` for the console). */
  groupPrefix?: string;
  /** What one fetch may bring: the most held in memory at once (kafkajs's maxBytes). */
  fetchBytes?: number;
  /** A read that has not reached every range's end by then is given up (the broker is away). */
  timeoutMs?: number;
  /** A range whose records come to more bytes than this is left there, and named in the answer. */
  maxBytesPerRange?: number;
}

/** Each partition's first and end offset: what a range may ask for. */
export async function partitionOffsets(kafka: Kafka, topic: string): Promise<Array<{ partition: number; low: number; high: number }>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return [];
    return (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, low: Number(p.low), high: Number(p.high) }));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads the given offset ranges of one topic, and nothing else of it, with a throwaway consumer group
 * (deleted afterwards): each partition is sought to its range's start and left once it reaches the
 * range's end, or once its records passed `maxBytesPerRange` (it is then in `overBudget`: the caller
 * asks for less). What one fetch brings is bounded by `fetchBytes`; a caller that keeps only what it
 * needs of each message (a page of headers) holds no more than that, however large the topic.
 */
export async function readRange(
  kafka: Kafka,
  topic: string,
  ranges: OffsetRange[],
  onMessage: (read: ReadMessage) => void,
  options: RangeReadOptions = {},
): Promise<{ overBudget: Set<number> }> {
  const overBudget = new Set<number>();
  const wanted = ranges.filter((r) => r.to > r.from);
  if (wanted.length === 0) return { overBudget };
  const { groupPrefix = 'reader-', fetchBytes = 4 * 1024 * 1024, timeoutMs = 30_000, maxBytesPerRange = Infinity } = options;
  const ends = new Map(wanted.map((r) => [r.partition, r.to]));
  const bytes = new Map(wanted.map((r) => [r.partition, 0]));
  const groupId = `${groupPrefix}${randomUUID()}`;
  // A dead letter is at most 2 MiB: one partition's fetch must hold one whole record
  const consumer = kafka.consumer({
    groupId,
    maxWaitTimeInMs: fetchWaitMs,
    maxBytes: fetchBytes,
    maxBytesPerPartition: Math.min(fetchBytes, 2.5 * 1024 * 1024),
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`reading ${topic} did not reach the end of its ranges within ${timeoutMs} ms`)), timeoutMs);
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const end = ends.get(batch.partition);
            if (end === undefined) return;
            for (const message of batch.messages) {
              if (Number(message.offset) >= end) break;
              const read = bytes.get(batch.partition)! + (message.value?.length ?? 0) + (message.key?.length ?? 0);
              bytes.set(batch.partition, read);
              if (read > maxBytesPerRange) {
                overBudget.add(batch.partition);
                break;
              }
              onMessage({ topic, partition: batch.partition, message });
            }
            // Also when the offsets left before the end are control records, which no batch shows
            if (overBudget.has(batch.partition) || Number(batch.lastOffset()) + 1 >= end) ends.delete(batch.partition);
            if (!ends.has(batch.partition)) consumer.pause([{ topic, partitions: [batch.partition] }]);
            if (ends.size === 0) resolve();
          },
        })
        .catch(reject);
      // run() has made the consumer's group by now; a seek is applied once the partition is assigned
      for (const range of wanted) consumer.seek({ topic, partition: range.partition, offset: String(range.from) });
    });
    return { overBudget };
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
    await deleteReaderGroup(kafka, groupId);
  }
}

async function deleteReaderGroup(kafka: Kafka, groupId: string): Promise<void> {
  const admin = kafka.admin();
  await admin
    .connect()
    .then(() => admin.deleteGroups([groupId]))
    .catch(letGo(`the reader's group ${groupId} is left for the broker to expire`, new Logger('read-range')));
  await admin.disconnect();
}
