import type { Message, TopicMessages } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { EventCodec } from '@app/kafka';

/** An outbox row as the relay reads it. */
export interface OutboxRow {
  id: string;
  event_type: string;
  message_key: string;
  payload: DomainEvent;
  headers: Record<string, string>;
  /** A copy's own topic, behind the prefix; null for the event's own topic. */
  topic: string | null;
}

/** A row ready to send: its topic, its Kafka message and about how many bytes it takes in a request. */
export interface Encoded {
  row: OutboxRow;
  topic: string;
  message: Message;
  bytes: number;
}

/** Kafka's per-record overhead (lengths, offsets, attributes), generously rounded up. */
const recordOverheadBytes = 80;

export async function encodeRows(codec: EventCodec, rows: OutboxRow[]): Promise<Encoded[]> {
  const encoded: Encoded[] = [];
  for (const row of rows) {
    const value = await codec.encode(row.payload);
    const headerBytes = Object.entries(row.headers).reduce((sum, [k, v]) => sum + k.length + String(v).length, 0);
    encoded.push({
      row,
      topic: row.topic ? codec.topicPrefix + row.topic : codec.topicFor(row.payload.eventType),
      message: { key: row.message_key, value, headers: row.headers },
      bytes: value.length + row.message_key.length + headerBytes + recordOverheadBytes,
    });
  }
  return encoded;
}

/** Consecutive runs of rows under `maxBytes` each; a row larger than that alone makes its own request. */
export function splitByBytes<T extends { bytes: number }>(rows: T[], maxBytes: number): T[][] {
  const requests: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const row of rows) {
    if (current.length > 0 && size + row.bytes > maxBytes) {
      requests.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += row.bytes;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/**
 * The requests a batch is sent in, each under `maxBytes`: the rows for the event topics together,
 * and each copy destination's (a partner's topic) in requests of its own, so that a destination the
 * broker refuses (a partner removed) is known by its request and holds back no other.
 */
export function requestsOf(encoded: Encoded[], maxBytes: number): Encoded[][] {
  const byDestination = new Map<string | null, Encoded[]>([[null, []]]);
  for (const e of encoded) {
    const destination = e.row.topic === null ? null : e.topic;
    (byDestination.get(destination) ?? byDestination.set(destination, []).get(destination)!).push(e);
  }
  return [...byDestination.values()].filter((rows) => rows.length > 0).flatMap((rows) => splitByBytes(rows, maxBytes));
}

/** A request of copies for one destination alone (see requestsOf). */
export function isCopyRequest(request: Encoded[]): boolean {
  return request.length > 0 && request.every((e) => e.row.topic !== null && e.topic === request[0].topic);
}

/** Groups rows by topic keeping their order, which kafkajs keeps within each partition. */
export function toTopicMessages(request: Encoded[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const { topic, message } of request) {
    const messages = byTopic.get(topic) ?? byTopic.set(topic, []).get(topic)!;
    messages.push(message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
