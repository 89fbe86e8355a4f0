import type { Message } from 'kafkajs';
import { openSpan, Span, SpanKind, traceparentOf } from '@app/tracing';

/** What the relay is about to send of one outbox row. */
export interface RowToPublish {
  row: { message_key: string; event_type: string; headers: Record<string, string> };
  topic: string;
  message: Message;
}

/**
 * Each row is published in a span of the trace it was written in (its stored context, not the relay's),
 * and the message carries that span's context for its consumers. The caller ends the spans.
 */
export function openPublishSpans(request: RowToPublish[]): Span[] {
  return request.map((encoded) => {
    const { row } = encoded;
    const facts = { taskId: row.message_key, eventId: row.headers.eventId, eventType: row.event_type, 'messaging.destination.name': encoded.topic };
    const span = openSpan(`publish ${row.event_type}`, { parent: row.headers.traceparent, kind: SpanKind.PRODUCER, facts });
    const traceparent = traceparentOf(span);
    if (traceparent) encoded.message = { ...encoded.message, headers: { ...row.headers, traceparent } };
    return span;
  });
}
