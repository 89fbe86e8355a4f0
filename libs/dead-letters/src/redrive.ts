import type { Kafka } from 'kafkajs';
import { redriveLogTopic } from '@app/events';
import { ensureTopics, IdempotentProducer } from '@app/kafka';
import { DeadLetter, DeadLetterFilter, matches, readDeadLetters, readRedriveLog, redrivenHeaders } from './dead-letter-store';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RedriveOptions extends DeadLetterFilter {
  dryRun?: boolean;
  /** Messages per second at most. */
  rate?: number;
  by: string;
  includeParked?: boolean;
  /** Only these dead letters (`partition:offset`), e.g. the one an operator picked. */
  ids?: string[];
  /** The reading principal's allowed group names (`console-` for the console). */
  readerGroupPrefix?: string;
  /** Called after each message re-driven: how many so far, out of how many. */
  onProgress?: (done: number, total: number) => void;
}

export interface RedriveResult {
  redriven: DeadLetter[];
  skipped: Array<{ letter: DeadLetter; why: string }>;
}

/**
 * Republishes dead letters to their original topic with their original key, value and headers —
 * the original eventId kept, so the consumer's inbox still deduplicates — and logs each re-drive
 * (what, by whom, when) so that a second re-drive skips it. A dead letter that already failed after
 * a re-drive is parked: skipped unless asked for.
 */
export async function redrive(kafka: Kafka, groupId: string, options: RedriveOptions): Promise<RedriveResult> {
  const reader = options.readerGroupPrefix;
  const [letters, done] = await Promise.all([readDeadLetters(kafka, groupId, reader), readRedriveLog(kafka, groupId, reader)]);
  const result: RedriveResult = { redriven: [], skipped: [] };
  const todo: DeadLetter[] = [];
  const picked = options.ids && new Set(options.ids);
  for (const letter of letters.filter((l) => matches(l, options) && (!picked || picked.has(l.id)))) {
    const before = done.get(letter.id);
    if (before) result.skipped.push({ letter, why: `already re-driven by ${before.by} at ${before.at}` });
    else if (letter.parked && !options.includeParked) result.skipped.push({ letter, why: 'parked: it failed again after a re-drive' });
    else if (!letter.originalTopic) result.skipped.push({ letter, why: 'no original topic recorded' });
    else todo.push(letter);
  }
  if (options.dryRun || todo.length === 0) return { ...result, redriven: todo };

  await ensureTopics(kafka, [{ topic: redriveLogTopic(groupId), partitions: 1 }]);
  const producer = new IdempotentProducer(kafka);
  await producer.connect();
  try {
    for (const letter of todo) {
      await producer.send({ topic: letter.originalTopic, acks: -1, messages: [{ key: letter.key, value: letter.value, headers: redrivenHeaders(letter) }] });
      const entry = {
        deadLetter: letter.id,
        eventId: letter.eventId ?? null,
        originalTopic: letter.originalTopic,
        by: options.by,
        at: new Date().toISOString(),
      };
      await producer.send({ topic: redriveLogTopic(groupId), acks: -1, messages: [{ key: letter.id, value: JSON.stringify(entry) }] });
      result.redriven.push(letter);
      options.onProgress?.(result.redriven.length, todo.length);
      if (options.rate) await sleep(1000 / options.rate!);
    }
  } finally {
    await producer.disconnect();
  }
  return result;
}
