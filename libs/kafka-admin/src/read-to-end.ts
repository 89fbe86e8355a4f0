import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { fetchWaitMs } from '@app/kafka';

export interface ReadMessage {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/**
 * Reads topics from their first offset to the end they had when the read began, with a throwaway
 * consumer group of its own (deleted afterwards): no service's group is touched. Topics that do not
 * exist are skipped. The group's name starts with `groupPrefix`, which the reader's principal must
 * be allowed (the auditor's groups start with `auditor-`).
 */
export async function readToEnd(
  kafka: Kafka,
  topics: string[],
  onMessage: (read: ReadMessage) => Promise<void> | void,
  onProgress: (read: number, total: number) => void = () => undefined,
  groupPrefix = 'reader-',
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const present = topics.filter((t) => existing.has(t));
  const ends = new Map<string, number>();
  for (const topic of present) {
    for (const p of await admin.fetchTopicOffsets(topic)) if (Number(p.high) > Number(p.low)) ends.set(`${topic}:${p.partition}`, Number(p.high));
  }
  const total = [...ends.values()].reduce((sum, end) => sum + end, 0);
  const groupId = `${groupPrefix}${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: fetchWaitMs });
  let read = 0;
  try {
    if (ends.size === 0) return;
    await consumer.connect();
    await consumer.subscribe({ topics: present, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const key = `${batch.topic}:${batch.partition}`;
            const end = ends.get(key) ?? 0;
            for (const message of batch.messages) {
              if (Number(message.offset) >= end) break;
              await onMessage({ topic: batch.topic, partition: batch.partition, message });
              read++;
              if (Number(message.offset) + 1 >= end) ends.delete(key);
            }
            onProgress(read, total);
            if (ends.size === 0) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
    await admin.deleteGroups([groupId]).catch(letGo(`the reader's group ${groupId} is left for the broker to expire`, new Logger('read-to-end')));
    await admin.disconnect();
  }
}
