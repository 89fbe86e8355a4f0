import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import type { ErrorCode } from '@app/failures';

/** The headers that say why and where a message failed; the original headers are kept beside them. */
export const deadLetterHeaders = {
  topic: 'dlq-original-topic',
  partition: 'dlq-original-partition',
  offset: 'dlq-original-offset',
  consumer: 'dlq-consumer',
  errorCode: 'dlq-error-code',
  errorClass: 'dlq-error-class',
  errorMessage: 'dlq-error-message',
  attempts: 'dlq-attempts',
  failedAt: 'dlq-failed-at',
} as const;

export interface FailedDelivery {
  topic: string;
  partition: number;
  message: KafkaMessage;
  consumer: string;
  errorCode: ErrorCode;
  error: unknown;
  attempts: number;
}

/** The original key, value and headers, byte for byte, plus the error headers. */
export function deadLetterMessage(failed: FailedDelivery): Message {
  const error = failed.error as Error | undefined;
  const headers: IHeaders = {
    ...failed.message.headers,
    [deadLetterHeaders.topic]: failed.topic,
    [deadLetterHeaders.partition]: String(failed.partition),
    [deadLetterHeaders.offset]: failed.message.offset,
    [deadLetterHeaders.consumer]: failed.consumer,
    [deadLetterHeaders.errorCode]: failed.errorCode,
    [deadLetterHeaders.errorClass]: error?.name ?? typeof failed.error,
    [deadLetterHeaders.errorMessage]: (error?.message ?? String(failed.error)).slice(0, 2000),
    [deadLetterHeaders.attempts]: String(failed.attempts),
    [deadLetterHeaders.failedAt]: new Date().toISOString(),
  };
  return { key: failed.message.key, value: failed.message.value, headers };
}
