import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { DomainEvent, eventTypes } from '@app/events';
import { EventCodec } from '@app/messaging';

export interface ReadResult {
  events: DomainEvent[];
  undecodable: Array<{ topic: string; partition: number; offset: string; error: string }>;
}

/**
 * Reads every event topic from its first offset to the end it had when the read began, with a
 * throwaway consumer group of its own (deleted afterwards) — no service's group is touched.
 */
export async function readAllEvents(kafka: Kafka, codec: EventCodec, onProgress: (read: number, total: number) => void = () => undefined): Promise<ReadResult> {
  const topics = eventTypes.map((type) => codec.topicFor(type));
  const admin = kafka.admin();
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const ends = new Map<string, number>();
  for (const topic of topics.filter((t) => existing.has(t))) {
    for (const p of await admin.fetchTopicOffsets(topic)) if (Number(p.high) > Number(p.low)) ends.set(`${topic}:${p.partition}`, Number(p.high));
  }
  const total = [...ends.values()].reduce((sum, end) => sum + end, 0);
  const result: ReadResult = { events: [], undecodable: [] };
  const groupId = `audit-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId });
  let read = 0;
  try {
    if (ends.size > 0) {
      await consumer.connect();
      await consumer.subscribe({ topics: topics.filter((t) => existing.has(t)), fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              const key = `${batch.topic}:${batch.partition}`;
              const end = ends.get(key) ?? 0;
              for (const message of batch.messages) {
                if (Number(message.offset) >= end) break;
                try {
                  result.events.push(await codec.decode(message.value));
                } catch (error) {
                  result.undecodable.push({ topic: batch.topic, partition: batch.partition, offset: message.offset, error: (error as Error).message });
                }
                read++;
                if (Number(message.offset) + 1 >= end) ends.delete(key);
              }
              onProgress(read, total);
              if (ends.size === 0) resolve();
            },
          })
          .catch(reject);
      });
    }
  } finally {
    await consumer.disconnect();
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
  return result;
}
