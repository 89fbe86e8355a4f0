import { deadLetterMessage } from '@app/dead-letters';
import type { ErrorCode } from '@app/failures';
import type { IdempotentProducer } from '@app/kafka';
import type { ConsumedMessage } from './consumed-message';

/** Why a message is given up on, and after how many attempts. */
export interface GivenUp {
  errorCode: ErrorCode;
  error: unknown;
  attempts: number;
}

/** The message, byte for byte, to the consumer's dead-letter topic with why it failed; acknowledged by all replicas. */
export async function sendToDeadLetters(producer: IdempotentProducer, deadLetterTopic: string, consumed: ConsumedMessage, why: GivenUp): Promise<void> {
  await producer.send({ topic: deadLetterTopic, acks: -1, messages: [deadLetterMessage({ ...consumed, ...why })] });
}
