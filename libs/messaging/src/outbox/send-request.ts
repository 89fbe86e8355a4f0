import type { Message } from 'kafkajs';
import { relayRequestMessages, relayRequests } from '@app/metrics';
import { failSpan } from '@app/tracing';
import type { IdempotentProducer, Placed } from '@app/kafka';
import { openPublishSpans } from './publish-spans';
import { Encoded, toTopicMessages } from './relay-requests';

/** A request with the broker; `failure` resolves to its error, if any. */
export interface Sending {
  request: Encoded[];
  failure: Promise<unknown>;
  /** Where each row was appended, once acknowledged. */
  places: Map<Message, Placed>;
}

/** Sends one request of the relay in its rows' publish spans; `failure` resolves to the error, if any (it never rejects). */
export function sendRequest(producer: IdempotentProducer, request: Encoded[]): Sending {
  const spans = openPublishSpans(request);
  relayRequests.inc();
  relayRequestMessages.inc(request.length);
  const places = new Map<Message, Placed>();
  const failure = producer.sendBatchPlaced({ acks: -1, topicMessages: toTopicMessages(request) }).then(
    (placed) => void placed.forEach((place, message) => places.set(message, place)),
    (error: unknown) => {
      for (const span of spans) failSpan(span, error);
      return error;
    },
  );
  return { request, places, failure: failure.finally(() => spans.forEach((span) => span.end())) };
}
