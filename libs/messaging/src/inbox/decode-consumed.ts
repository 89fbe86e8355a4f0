import { DomainEvent, envelopeProblems } from '@app/events';
import type { EventCodec } from '@app/kafka';
import { PlatformError } from '@app/failures';
import type { ConsumedMessage } from './consumed-message';

/**
 * A consumed message as the event its topic carries, with an envelope that keeps the platform's
 * rules; anything else fails as the message's fault (DECODE_FAILED, TOPIC_MISMATCH, INVALID_EVENT),
 * before any of its fields reaches the inbox or a handler.
 */
export async function decodeConsumed(codec: EventCodec, { topic, message }: Pick<ConsumedMessage, 'topic' | 'message'>): Promise<DomainEvent> {
  const event = await codec.decode(message.value, codec.typeOfTopic(topic));
  const problems = envelopeProblems(event as unknown as Record<string, unknown>);
  if (problems.length > 0) throw new PlatformError('INVALID_EVENT', `${event.eventType}'s envelope breaks the rules: ${problems.join('; ')}`);
  return event;
}
