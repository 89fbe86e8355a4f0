import type { DomainEvent } from '@app/events';
import type { EventCodec } from '@app/kafka';
import type { ConsumedMessage } from './consumed-message';
import type { PartitionMessages } from './batch-merger';
import { decodeConsumed } from './decode-consumed';

export interface DecodedMessage {
  event: DomainEvent;
  consumed: ConsumedMessage;
}

/** A partition's messages decoded in offset order, up to the first that cannot be (its index and error). */
export async function decodeInOrder(
  codec: EventCodec,
  consumer: string,
  { topic, partition, messages }: PartitionMessages,
): Promise<{ arrivals: DecodedMessage[]; undecodable?: { index: number; error: unknown } }> {
  const arrivals: DecodedMessage[] = [];
  for (const message of messages) {
    try {
      arrivals.push({ event: await decodeConsumed(codec, { topic, message }), consumed: { consumer, topic, partition, message } });
    } catch (error) {
      return { arrivals, undecodable: { index: arrivals.length, error } };
    }
  }
  return { arrivals };
}
