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

/** Groups rows by topic keeping their order, which kafkajs keeps within each partition. */
export function toTopicMessages(request: Encoded[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const { topic, message } of request) {
    const messages = byTopic.get(topic) ?? byTopic.set(topic, []).get(topic)!;
    messages.push(message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/** The broker's "too large" answers, wherever kafkajs wrapped them. */
export function isTooLarge(error: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return false;
    seen.add(e);
    const { type, cause, originalError, errors } = e as { type?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
    if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE') return true;
    return visit(cause, depth + 1) || visit(originalError, depth + 1) || (Array.isArray(errors) && errors.some((x) => visit(x, depth + 1)));
  };
  return visit(error, 0);
}
