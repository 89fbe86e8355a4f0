import type { IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import { partitionOffsets, readRange, readToEnd } from '@app/kafka-admin';
import { deadLetterTopicFor } from '@app/catalogue';
import { deadLetterHeaders, isDeadLetterHeader } from './dead-letter-format';

/** How many times a message was re-driven; carried on, so a dead letter that failed again shows it. */
export const redrivesHeader = deadLetterHeaders.redrives;

export interface DeadLetter {
  id: string; // `${partition}:${offset}` in the dead-letter topic
  key: Buffer | null;
  /** Null in a page of letters (which keeps headers only); `valueBytes` says how large it is. */
  value: Buffer | null;
  valueBytes: number;
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

/**
 * Every dead letter of a group's consumer. `readerGroupPrefix`: the reading principal's allowed group
 * names (`console-` for the console). Only the letters `keepValue` picks keep their values: a topic
 * filled with large letters costs its headers, not its bytes.
 */
export async function readDeadLetters(
  kafka: Kafka,
  groupId: string,
  readerGroupPrefix?: string,
  keepValue: (letter: DeadLetter) => boolean = () => true,
): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  await readToEnd(
    kafka,
    [deadLetterTopicFor(groupId)],
    ({ partition, message }) => {
      const letter = letterOf(partition, message, false);
      letters.push(keepValue(letter) ? { ...letter, value: message.value } : letter);
    },
    undefined,
    readerGroupPrefix,
  );
  return letters;
}

/** Each dead letter of a group's consumer, handed over as it is read and not kept: for topics of any length. */
export async function forEachDeadLetter(kafka: Kafka, groupId: string, onLetter: (letter: DeadLetter) => void, readerGroupPrefix?: string): Promise<void> {
  await readToEnd(kafka, [deadLetterTopicFor(groupId)], ({ partition, message }) => onLetter(letterOf(partition, message, true)), undefined, readerGroupPrefix);
}

/** A dead-letter record as a letter; without its value unless `withValue`. */
export function letterOf(partition: number, message: KafkaMessage, withValue: boolean): DeadLetter {
  const headers = text(message.headers);
  return {
    id: `${partition}:${message.offset}`,
    key: message.key,
    value: withValue ? message.value : null,
    valueBytes: message.value?.length ?? 0,
    headers,
    originalTopic: headers[deadLetterHeaders.topic],
    errorCode: headers[deadLetterHeaders.errorCode],
    errorClass: headers[deadLetterHeaders.errorClass],
    errorMessage: headers[deadLetterHeaders.errorMessage],
    failedAt: Date.parse(headers[deadLetterHeaders.failedAt]),
    eventId: headers.eventId,
    parked: Number(headers[redrivesHeader] ?? 0) > 0,
  };
}

/** Where a page of letters ends: each partition's first offset not yet shown (`0:120,1:98,2:77`). */
export type PageCursor = Map<number, number>;

export function parseCursor(text: string): PageCursor | undefined {
  if (!/^\d{1,4}:\d{1,15}(,\d{1,4}:\d{1,15}){0,255}$/.test(text)) return undefined;
  return new Map(text.split(',').map((pair) => pair.split(':').map(Number) as [number, number]));
}

export function formatCursor(cursor: PageCursor): string {
  return [...cursor].map(([partition, offset]) => `${partition}:${offset}`).join(',');
}

export interface DeadLetterPage {
  /** Newest first, values left out. */
  letters: DeadLetter[];
  /** The cursor of the next, older page; absent when these are the oldest. */
  older?: string;
  /** Letters in the topic now (retention may have taken the oldest). */
  total: number;
}

/**
 * A page of a group's dead letters, newest first, read by offset range: at most `limit` of each
 * partition before `before` (the end of the topic when absent) and about `maxBytes` of records in
 * all (fewer letters when they are large), headers kept and values left out, so that a page of a
 * topic filled with large garbage costs its budget, never the topic.
 */
export async function readDeadLetterPage(
  kafka: Kafka,
  groupId: string,
  options: { before?: PageCursor; limit?: number; maxBytes?: number; readerGroupPrefix?: string } = {},
): Promise<DeadLetterPage> {
  const { before, limit = 50, maxBytes = 8 * 1024 * 1024, readerGroupPrefix } = options;
  const topic = deadLetterTopicFor(groupId);
  const offsets = await partitionOffsets(kafka, topic);
  const ends = new Map(offsets.map(({ partition, low, high }) => [partition, { low, end: Math.max(low, Math.min(high, before?.get(partition) ?? high)) }]));
  const { byPartition, ranges } = await readWindows(
    kafka,
    topic,
    ends,
    limit,
    Math.max(maxBytes / Math.max(1, ends.size), 2.5 * 1024 * 1024),
    readerGroupPrefix,
  );
  // Merged newest first, each partition taken from its end down: what a page shows of a partition is
  // always the offsets just below its cursor, so the next page misses nothing
  const next: PageCursor = new Map([...ends].map(([partition, { end }]) => [partition, end]));
  const letters: DeadLetter[] = [];
  while (letters.length < limit) {
    const heads = [...byPartition].filter(([, list]) => list.length > 0);
    if (heads.length === 0) break;
    const [partition, list] = heads.reduce((a, b) => ((b[1].at(-1)!.failedAt || 0) > (a[1].at(-1)!.failedAt || 0) ? b : a));
    const letter = list.pop()!;
    letters.push(letter);
    next.set(partition, Number(letter.id.split(':')[1]));
  }
  // A partition whose window was shown whole (control records hold offsets no letter has) goes on below it
  for (const range of ranges) if (byPartition.get(range.partition)!.length === 0) next.set(range.partition, range.from);
  const olderLeft = [...next].some(([partition, offset]) => offset > ends.get(partition)!.low);
  const total = offsets.reduce((sum, { low, high }) => sum + high - low, 0);
  return { letters, older: olderLeft ? formatCursor(next) : undefined, total };
}

/**
 * Each partition's window of `limit` letters below its end, without values, narrowed (to what fitted)
 * while its records come to more than `budget` bytes; a window of one letter always fits.
 */
async function readWindows(
  kafka: Kafka,
  topic: string,
  ends: Map<number, { low: number; end: number }>,
  limit: number,
  budget: number,
  readerGroupPrefix?: string,
): Promise<{ byPartition: Map<number, DeadLetter[]>; ranges: Array<{ partition: number; from: number }> }> {
  const windows = new Map([...ends.keys()].map((partition) => [partition, limit]));
  const from = (partition: number) => Math.max(ends.get(partition)!.low, ends.get(partition)!.end - windows.get(partition)!);
  const byPartition = new Map<number, DeadLetter[]>();
  let pending = [...ends.keys()];
  while (pending.length > 0) {
    for (const partition of pending) byPartition.set(partition, []);
    const ranges = pending.map((partition) => ({ partition, from: from(partition), to: ends.get(partition)!.end }));
    const { overBudget } = await readRange(
      kafka,
      topic,
      ranges,
      ({ partition, message }) => byPartition.get(partition)!.push(letterOf(partition, message, false)),
      {
        groupPrefix: readerGroupPrefix,
        maxBytesPerRange: budget,
      },
    );
    pending = [...overBudget].filter((partition) => windows.get(partition)! > 1);
    for (const partition of pending) windows.set(partition, Math.max(1, Math.min(Math.floor(windows.get(partition)! / 2), byPartition.get(partition)!.length)));
  }
  return { byPartition, ranges: [...ends.keys()].map((partition) => ({ partition, from: from(partition) })) };
}

/** One dead letter by id (`partition:offset`), value included; undefined when there is none. */
export async function readDeadLetter(kafka: Kafka, groupId: string, id: string, readerGroupPrefix?: string): Promise<DeadLetter | undefined> {
  const match = /^(\d{1,4}):(\d{1,15})$/.exec(id);
  if (!match) return undefined;
  const [partition, offset] = [Number(match[1]), Number(match[2])];
  const topic = deadLetterTopicFor(groupId);
  const range = (await partitionOffsets(kafka, topic)).find((p) => p.partition === partition);
  if (!range || offset < range.low || offset >= range.high) return undefined;
  let found: DeadLetter | undefined;
  await readRange(kafka, topic, [{ partition, from: offset, to: offset + 1 }], ({ message }) => (found = letterOf(partition, message, true)), {
    groupPrefix: readerGroupPrefix,
  });
  return found;
}

export function matches(letter: DeadLetter, filter: DeadLetterFilter): boolean {
  return (
    (filter.topic === undefined || letter.originalTopic === filter.topic) &&
    (filter.error === undefined || letter.errorCode === filter.error || letter.errorClass === filter.error) &&
    (filter.since === undefined || letter.failedAt >= filter.since) &&
    (filter.until === undefined || letter.failedAt < filter.until)
  );
}

/** The original headers, without the dead-letter ones. */
export function redrivenHeaders(letter: DeadLetter): Record<string, string> {
  return Object.fromEntries(Object.entries(letter.headers).filter(([k]) => !isDeadLetterHeader(k)));
}

/** How many times the letter's message will have been re-driven, this once included. */
export function redrivesAfter(letter: DeadLetter): number {
  return Number(letter.headers[redrivesHeader] ?? 0) + 1;
}
