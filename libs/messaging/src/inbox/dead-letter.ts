import { deadLetterMessage, withoutValue } from '@app/dead-letters';
import type { ErrorCode } from '@app/failures';
import { IdempotentProducer, isTooLarge } from '@app/kafka';
import type { ConsumedMessage } from './consumed-message';

/** Why a message is given up on, and after how many attempts. */
export interface GivenUp {
  errorCode: ErrorCode;
  error: unknown;
  attempts: number;
}

/**
 * The message, byte for byte, to the consumer's dead-letter topic with why it failed; acknowledged
 * by all replicas. A letter the broker refuses for its size goes without its value (see
 * withoutValue): a letter that cannot be written must never stop the partition, since the message
 * would be read, fail and be refused again, without end.
 */
export async function sendToDeadLetters(producer: IdempotentProducer, deadLetterTopic: string, consumed: ConsumedMessage, why: GivenUp): Promise<void> {
  const letter = deadLetterMessage({ ...consumed, ...why });
  try {
    await producer.send({ topic: deadLetterTopic, acks: -1, messages: [letter] });
  } catch (error) {
    if (!isTooLarge(error)) throw error;
    await producer.send({ topic: deadLetterTopic, acks: -1, messages: [withoutValue(letter)] });
  }
}
