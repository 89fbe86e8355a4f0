import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { redriveRequestTopic } from '@app/catalogue';
import { partitionOffsets, readRange } from '@app/kafka-admin';
import { deadLetterTopicFor } from '@app/catalogue';
import { DeadLetter, DeadLetterFilter, forEachDeadLetter, letterOf, matches } from './dead-letter-store';
import { readRedriveLog, RedriveLogEntry } from './redrive-log';

/** The most letters one request takes: a larger clean-up is several, each looked at first (a request names each letter). */
export const redriveLimit = 10_000;

/** What an operator asks a service to handle again: a filter, or letters by id. */
export interface RedriveRequest extends DeadLetterFilter {
  requestId: string;
  by: string;
  /** Only these dead letters (`partition:offset`), e.g. the one an operator picked. */
  ids?: string[];
  includeParked?: boolean;
  /** Messages per second at most. */
  rate?: number;
}

export interface RedriveOptions extends Omit<RedriveRequest, 'requestId'> {
  dryRun?: boolean;
  /** The reading principal's allowed group names (`console-` for the console). */
  readerGroupPrefix?: string;
  /** The group's re-drive log by letter, when the asker follows it already (the console's tail); read otherwise. */
  done?: Map<string, RedriveLogEntry>;
}

export interface RedriveResult {
  requestId?: string;
  redriven: DeadLetter[];
  skipped: Array<{ letter: DeadLetter; why: string }>;
  /** Letters matched past redriveLimit, left for another request. */
  left?: number;
}

/** Whether a request names the letter (by its filter, and its ids if any): only those keep their values when a service reads its letters. */
export function askedFor(letter: DeadLetter, request: Omit<RedriveRequest, 'requestId' | 'by'>): boolean {
  return matches(letter, request) && (!request.ids || request.ids.includes(letter.id));
}

/** Why a letter the request names is not taken, or undefined when it is. */
function whySkipped(letter: DeadLetter, done: Map<string, RedriveLogEntry>, request: Omit<RedriveRequest, 'requestId' | 'by'>): string | undefined {
  const before = done.get(letter.id);
  if (before) return `already re-driven by ${before.by} at ${before.at}`;
  if (letter.parked && !request.includeParked) return 'parked: it failed again after a re-drive';
  if (!letter.originalTopic) return 'no original topic recorded';
  return undefined;
}

/** Which letters a request takes, and why each other one it matches is left. */
export function selectForRedrive(letters: DeadLetter[], done: Map<string, RedriveLogEntry>, request: Omit<RedriveRequest, 'requestId' | 'by'>): RedriveResult {
  const result: RedriveResult = { redriven: [], skipped: [] };
  for (const letter of letters.filter((l) => askedFor(l, request))) {
    const why = whySkipped(letter, done, request);
    if (why) result.skipped.push({ letter, why });
    else result.redriven.push(letter);
  }
  return result;
}

/**
 * The letters a request names, values included: by their offsets when it lists them (each request
 * from this library does), read past once otherwise, keeping only those it matches (at most
 * redriveLimit): a topic of others' garbage costs reading, never memory.
 */
export async function lettersAskedFor(
  kafka: Kafka,
  groupId: string,
  request: Omit<RedriveRequest, 'requestId' | 'by'>,
  readerGroupPrefix?: string,
): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  const keep = (letter: DeadLetter) => askedFor(letter, request) && letters.length < redriveLimit && letters.push(letter);
  if (!request.ids) {
    await forEachDeadLetter(kafka, groupId, keep, readerGroupPrefix);
    return letters;
  }
  // Offsets the topic holds alone: a request naming one it never had (or retention took) waits for nothing
  const topic = deadLetterTopicFor(groupId);
  const held = new Map((await partitionOffsets(kafka, topic)).map(({ partition, low, high }) => [partition, { low, high }]));
  const spans = new Map<number, { partition: number; from: number; to: number }>();
  for (const [partition, offset] of request.ids.map((id) => id.split(':').map(Number))) {
    const range = held.get(partition);
    if (!range || offset < range.low || offset >= range.high) continue;
    const span = spans.get(partition) ?? { partition, from: offset, to: offset + 1 };
    spans.set(partition, { partition, from: Math.min(span.from, offset), to: Math.max(span.to, offset + 1) });
  }
  const ranges = [...spans.values()];
  await readRange(kafka, topic, ranges, ({ partition, message }) => keep(letterOf(partition, message, true)), {
    groupPrefix: readerGroupPrefix,
  });
  return letters;
}

/**
 * Asks the group's service to handle dead letters again: it reads them from its own dead-letter
 * topic, hands each to its consumer's delivery with its original eventId (so the inbox still
 * deduplicates), and logs each (what, by whom, when, how it ended) so that a second request skips
 * it; one that fails again comes back as a parked dead letter. Nothing is written to an event topic,
 * so whoever may ask can re-drive only what was dead-lettered. The letters are picked here, reading
 * the topic's headers past once and keeping the matches alone (at most redriveLimit), and the request
 * names each by its offset, so that the service reads those alone. A dry run asks nothing.
 */
export async function requestRedrive(kafka: Kafka, groupId: string, options: RedriveOptions): Promise<RedriveResult> {
  const { dryRun, readerGroupPrefix, done: followed, ...asked } = options;
  const done = followed ?? (await readRedriveLog(kafka, groupId, readerGroupPrefix));
  const result: RedriveResult = { redriven: [], skipped: [], left: 0 };
  await forEachDeadLetter(
    kafka,
    groupId,
    (letter) => {
      if (!askedFor(letter, asked)) return;
      const shown = { ...letter, value: null };
      const why = whySkipped(letter, done, asked);
      if (why && result.skipped.length < redriveLimit) result.skipped.push({ letter: shown, why });
      else if (!why && result.redriven.length < redriveLimit) result.redriven.push(shown);
      else if (!why) result.left!++;
    },
    readerGroupPrefix,
  );
  if (dryRun || result.redriven.length === 0) return result;
  const request: RedriveRequest = { ...asked, ids: result.redriven.map((letter) => letter.id), requestId: randomUUID() };
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({ topic: redriveRequestTopic(groupId), acks: -1, messages: [{ key: request.requestId, value: JSON.stringify(request) }] });
  } finally {
    await producer.disconnect();
  }
  return { ...result, requestId: request.requestId };
}

/** The log's entries for one request: how far its service has come. */
export async function redriveProgress(kafka: Kafka, groupId: string, requestId: string, readerGroupPrefix?: string): Promise<RedriveLogEntry[]> {
  return [...(await readRedriveLog(kafka, groupId, readerGroupPrefix)).values()].filter((entry) => entry.requestId === requestId);
}

/**
 * A request as read by the service: it comes from whoever may write the request topic, so it is
 * checked field by field; a string says what is wrong with it.
 */
export function parseRedriveRequest(value: Buffer | null): RedriveRequest | string {
  let raw: unknown;
  try {
    raw = JSON.parse(value?.toString('utf8') ?? '');
  } catch {
    return 'not JSON';
  }
  if (typeof raw !== 'object' || raw === null) return 'not an object';
  const r = raw as Record<string, unknown>;
  const text = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
  const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || ok(v);
  const time = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  const problems = [
    !text(r.requestId, 64) && 'requestId',
    !text(r.by, 200) && 'by',
    !optional(r.ids, (v) => Array.isArray(v) && v.length <= 10_000 && v.every((id) => typeof id === 'string' && /^\d+:\d+$/.test(id))) && 'ids',
    !optional(r.topic, (v) => text(v, 249)) && 'topic',
    !optional(r.error, (v) => text(v, 200)) && 'error',
    !optional(r.since, time) && 'since',
    !optional(r.until, time) && 'until',
    !optional(r.includeParked, (v) => typeof v === 'boolean') && 'includeParked',
    !optional(r.rate, (v) => typeof v === 'number' && v > 0 && v <= 1000) && 'rate',
  ].filter((p): p is string => typeof p === 'string');
  if (problems.length > 0) return `invalid ${problems.join(', ')}`;
  return r as unknown as RedriveRequest;
}
