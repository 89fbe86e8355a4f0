import type { IHeaders, Kafka } from 'kafkajs';
import { readToEnd } from '@app/kafka-admin';
import { deadLetterTopicFor, redriveLogTopic } from '@app/catalogue';
import { deadLetterHeaders } from './dead-letter-format';

/** How many times a message was re-driven; carried on, so a dead letter that failed again shows it. */
export const redrivesHeader = 'dlq-redrives';

export interface DeadLetter {
  id: string; // `${partition}:${offset}` in the dead-letter topic
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, string>;
  originalTopic: string;
  errorCode: string;
  errorClass: string;
  errorMessage: string;
  failedAt: number;
  eventId?: string;
  /** Re-driven before and failed again: left for a person to look at. */
  parked: boolean;
}

export interface DeadLetterFilter {
  topic?: string;
  /** An error code (HANDLER_FAILED) or an error class (PlatformError). */
  error?: string;
  since?: number;
  until?: number;
}

function text(headers: IHeaders | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v?.toString() ?? '')]));
}

/** `readerGroupPrefix`: the reading principal's allowed group names (`console-` for the console). */
export async function readDeadLetters(kafka: Kafka, groupId: string, readerGroupPrefix?: string): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  await forEachDeadLetter(kafka, groupId, (letter) => letters.push(letter), readerGroupPrefix);
  return letters;
}

/** Each dead letter of a group's consumer, handed over as it is read and not kept: for topics of any length. */
export async function forEachDeadLetter(kafka: Kafka, groupId: string, onLetter: (letter: DeadLetter) => void, readerGroupPrefix?: string): Promise<void> {
  await readToEnd(
    kafka,
    [deadLetterTopicFor(groupId)],
    ({ partition, message }) => {
      const headers = text(message.headers);
      onLetter({
        id: `${partition}:${message.offset}`,
        key: message.key,
        value: message.value,
        headers,
        originalTopic: headers[deadLetterHeaders.topic],
        errorCode: headers[deadLetterHeaders.errorCode],
        errorClass: headers[deadLetterHeaders.errorClass],
        errorMessage: headers[deadLetterHeaders.errorMessage],
        failedAt: Date.parse(headers[deadLetterHeaders.failedAt]),
        eventId: headers.eventId,
        parked: Number(headers[redrivesHeader] ?? 0) > 0,
      });
    },
    undefined,
    readerGroupPrefix,
  );
}

/** How a re-driven letter's second handling ended, as the service's delivery says it. */
export type RedriveOutcome = 'handled' | 'duplicate' | 'dead-lettered';

/** One line of a group's re-drive log: a letter its service handled again, at whose request. */
export interface RedriveLogEntry {
  deadLetter: string;
  eventId: string | null;
  originalTopic: string;
  requestId: string;
  by: string;
  at: string;
  outcome: RedriveOutcome;
}

/** The group's re-drive log, by dead-letter id (the last entry of each). */
export async function readRedriveLog(kafka: Kafka, groupId: string, readerGroupPrefix?: string): Promise<Map<string, RedriveLogEntry>> {
  const done = new Map<string, RedriveLogEntry>();
  await readToEnd(
    kafka,
    [redriveLogTopic(groupId)],
    ({ message }) => {
      const entry = JSON.parse(message.value?.toString() ?? '{}') as RedriveLogEntry;
      done.set(entry.deadLetter, entry);
    },
    undefined,
    readerGroupPrefix,
  );
  return done;
}

export function matches(letter: DeadLetter, filter: DeadLetterFilter): boolean {
  return (
    (filter.topic === undefined || letter.originalTopic === filter.topic) &&
    (filter.error === undefined || letter.errorCode === filter.error || letter.errorClass === filter.error) &&
    (filter.since === undefined || letter.failedAt >= filter.since) &&
    (filter.until === undefined || letter.failedAt < filter.until)
  );
}

/** The original headers, without the dead-letter ones, and with the re-drive count one higher. */
export function redrivenHeaders(letter: DeadLetter): Record<string, string> {
  const original = Object.fromEntries(Object.entries(letter.headers).filter(([k]) => !k.startsWith('dlq-')));
  return { ...original, [redrivesHeader]: String(Number(letter.headers[redrivesHeader] ?? 0) + 1) };
}
