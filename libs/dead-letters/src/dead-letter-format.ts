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
  /** How many times the message was re-driven before it failed (absent: never): one re-driven and failed again is parked. */
  redrives: 'dlq-redrives',
  /** The value was left out: the letter would not have fitted (the original is still on its topic, at its offset). */
  valueDropped: 'dlq-value-dropped',
} as const;

/** Headers of ours: a sender's of the same names are dropped, never obeyed (a `dlq-redrives` would park its own letter). */
export const isDeadLetterHeader = (name: string) => name.toLowerCase().startsWith('dlq-');

/** The longest error text a letter carries. */
const errorMessageChars = 2000;

export interface FailedDelivery {
  topic: string;
  partition: number;
  message: KafkaMessage;
  consumer: string;
  errorCode: ErrorCode;
  error: unknown;
  attempts: number;
  /** How many times it had been re-driven (a re-drive says; a message read off its topic: none). */
  redrives?: number;
}

/** The original key, value and headers, byte for byte (but headers named like ours), plus the error headers. */
export function deadLetterMessage(failed: FailedDelivery): Message {
  const error = failed.error as Error | undefined;
  const original = Object.entries(failed.message.headers ?? {}).filter(([name]) => !isDeadLetterHeader(name));
  const headers: IHeaders = {
    ...Object.fromEntries(original),
    [deadLetterHeaders.topic]: failed.topic,
    [deadLetterHeaders.partition]: String(failed.partition),
    [deadLetterHeaders.offset]: failed.message.offset,
    [deadLetterHeaders.consumer]: failed.consumer,
    [deadLetterHeaders.errorCode]: failed.errorCode,
    [deadLetterHeaders.errorClass]: error?.name ?? typeof failed.error,
    [deadLetterHeaders.errorMessage]: (error?.message ?? String(failed.error)).slice(0, errorMessageChars),
    [deadLetterHeaders.attempts]: String(failed.attempts),
    [deadLetterHeaders.failedAt]: new Date().toISOString(),
    ...(failed.redrives ? { [deadLetterHeaders.redrives]: String(failed.redrives) } : {}),
  };
  return { key: failed.message.key, value: failed.message.value, headers };
}

/**
 * The letter when the whole one would not fit its topic (the broker refused it for its size): the
 * error headers alone, the value and the sender's headers left out and their size said. Its place
 * (topic, partition, offset) still leads to the original while that topic keeps it; the partition
 * moves on either way, never reading the message again.
 */
export function withoutValue(letter: Message): Message {
  const headers = Object.fromEntries(Object.entries(letter.headers ?? {}).filter(([name]) => isDeadLetterHeader(name)));
  const bytes = (letter.value as Buffer | null)?.length ?? 0;
  return { key: letter.key, value: null, headers: { ...headers, [deadLetterHeaders.valueDropped]: `${bytes} bytes` } };
}
