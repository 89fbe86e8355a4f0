import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { redriveRequestTopic } from '@app/catalogue';
import { DeadLetter, DeadLetterFilter, matches, readDeadLetters, readRedriveLog, RedriveLogEntry } from './dead-letter-store';

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
}

export interface RedriveResult {
  requestId?: string;
  redriven: DeadLetter[];
  skipped: Array<{ letter: DeadLetter; why: string }>;
}

/** Whether a request names the letter (by its filter, and its ids if any): only those keep their values when a service reads its letters. */
export function askedFor(letter: DeadLetter, request: Omit<RedriveRequest, 'requestId' | 'by'>): boolean {
  return matches(letter, request) && (!request.ids || request.ids.includes(letter.id));
}

/** Which letters a request takes, and why each other one it matches is left. */
export function selectForRedrive(letters: DeadLetter[], done: Map<string, RedriveLogEntry>, request: Omit<RedriveRequest, 'requestId' | 'by'>): RedriveResult {
  const result: RedriveResult = { redriven: [], skipped: [] };
  for (const letter of letters.filter((l) => askedFor(l, request))) {
    const before = done.get(letter.id);
    if (before) result.skipped.push({ letter, why: `already re-driven by ${before.by} at ${before.at}` });
    else if (letter.parked && !request.includeParked) result.skipped.push({ letter, why: 'parked: it failed again after a re-drive' });
    else if (!letter.originalTopic) result.skipped.push({ letter, why: 'no original topic recorded' });
    else result.redriven.push(letter);
  }
  return result;
}

/**
 * Asks the group's service to handle dead letters again: it reads them from its own dead-letter
 * topic, hands each to its consumer's delivery with its original eventId (so the inbox still
 * deduplicates), and logs each (what, by whom, when, how it ended) so that a second request skips
 * it; one that fails again comes back as a parked dead letter. Nothing is written to an event topic,
 * so whoever may ask can re-drive only what was dead-lettered. Returns what the request should
 * take, as far as the asker can see now; a dry run asks nothing.
 */
export async function requestRedrive(kafka: Kafka, groupId: string, options: RedriveOptions): Promise<RedriveResult> {
  const { dryRun, readerGroupPrefix, ...asked } = options;
  // The asker needs which letters, not their values: the service reads those itself
  const [letters, done] = await Promise.all([
    readDeadLetters(kafka, groupId, readerGroupPrefix, () => false),
    readRedriveLog(kafka, groupId, readerGroupPrefix),
  ]);
  const result = selectForRedrive(letters, done, asked);
  if (dryRun || result.redriven.length === 0) return result;
  const request: RedriveRequest = { ...asked, requestId: randomUUID() };
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
