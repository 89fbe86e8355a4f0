import type { Kafka } from 'kafkajs';
import { readToEnd } from '@app/kafka-admin';
import { DomainEvent, taskEventTypes } from '@app/events';
import { EventCodec } from '@app/kafka';

export interface Undecodable {
  topic: string;
  partition: number;
  offset: string;
  error: string;
}

export interface ReadResult {
  events: DomainEvent[];
  undecodable: Undecodable[];
}

/**
 * Hands every event on every task event topic, decoded, to `onEvent` as it is read, holding none of
 * them; what cannot be decoded is listed, not dropped.
 */
export async function forEachEvent(
  kafka: Kafka,
  codec: EventCodec,
  onEvent: (event: DomainEvent) => void,
  onProgress?: (read: number, total: number) => void,
): Promise<Undecodable[]> {
  const undecodable: Undecodable[] = [];
  // The tasks' topics: the audit's invariants are about tasks (and the auditor may not read the keys' topic).
  const topics = taskEventTypes.map((type) => codec.topicFor(type));
  await readToEnd(
    kafka,
    topics,
    async ({ topic, partition, message }) => {
      let event: DomainEvent;
      try {
        event = await codec.decode(message.value, codec.typeOfTopic(topic));
      } catch (error) {
        undecodable.push({ topic, partition, offset: message.offset, error: (error as Error).message });
        return;
      }
      onEvent(event);
    },
    onProgress,
    `${codec.topicPrefix}auditor-`,
  );
  return undecodable;
}

/** Every event on every event topic, decoded and kept: for what needs them all (a rebuild). */
export async function readAllEvents(kafka: Kafka, codec: EventCodec, onProgress?: (read: number, total: number) => void): Promise<ReadResult> {
  const events: DomainEvent[] = [];
  const undecodable = await forEachEvent(kafka, codec, (event) => events.push(event), onProgress);
  return { events, undecodable };
}
