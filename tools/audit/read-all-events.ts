import type { Kafka } from 'kafkajs';
import { DomainEvent, eventTypes } from '@app/events';
import { EventCodec } from '@app/messaging';
import { readToEnd } from '@app/messaging';

export interface ReadResult {
  events: DomainEvent[];
  undecodable: Array<{ topic: string; partition: number; offset: string; error: string }>;
}

/** Every event on every event topic, decoded; what cannot be decoded is listed, not dropped. */
export async function readAllEvents(kafka: Kafka, codec: EventCodec, onProgress?: (read: number, total: number) => void): Promise<ReadResult> {
  const result: ReadResult = { events: [], undecodable: [] };
  const topics = eventTypes.map((type) => codec.topicFor(type));
  await readToEnd(
    kafka,
    topics,
    async ({ topic, partition, message }) => {
      try {
        result.events.push(await codec.decode(message.value, codec.typeOfTopic(topic)));
      } catch (error) {
        result.undecodable.push({ topic, partition, offset: message.offset, error: (error as Error).message });
      }
    },
    onProgress,
    `${codec.topicPrefix}auditor-`,
  );
  return result;
}
