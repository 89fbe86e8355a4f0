import type { Kafka } from 'kafkajs';
import { readToEnd } from '@app/kafka-admin';
import { redriveLogTopic } from '@app/catalogue';

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

/**
 * A request as its service took it, in the same log: who asked, for how many letters, and (written
 * again at its end) that it finished. What a console shows of a re-drive, whichever console asked.
 */
export interface RedriveRequestEntry {
  kind: 'request';
  requestId: string;
  by: string;
  /** When the service took it. */
  at: string;
  /** What was asked: one letter's id, or a filter. */
  what: string;
  total: number;
  skipped: number;
  finished: boolean;
}

export type RedriveLogRecord = RedriveLogEntry | RedriveRequestEntry;

/** One record of a re-drive log, or undefined for one that is not (the log is written by services alone, but read defensively). */
export function parseRedriveLogRecord(value: Buffer | null): RedriveLogRecord | undefined {
  try {
    const record = JSON.parse(value?.toString() ?? '') as RedriveLogRecord;
    if ('kind' in record && record.kind === 'request') return typeof record.requestId === 'string' ? record : undefined;
    return typeof (record as RedriveLogEntry).deadLetter === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The group's re-drive log, by dead-letter id (the last entry of each). */
export async function readRedriveLog(kafka: Kafka, groupId: string, readerGroupPrefix?: string): Promise<Map<string, RedriveLogEntry>> {
  const done = new Map<string, RedriveLogEntry>();
  await readToEnd(
    kafka,
    [redriveLogTopic(groupId)],
    ({ message }) => {
      const entry = parseRedriveLogRecord(message.value);
      if (entry && !('kind' in entry)) done.set(entry.deadLetter, entry);
    },
    undefined,
    readerGroupPrefix,
  );
  return done;
}
