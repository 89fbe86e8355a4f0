import type { Logger } from '@nestjs/common';
import type { Consumer, Kafka } from 'kafkajs';
import { redriveLogTopic, redriveRequestTopic } from '@app/catalogue';
import {
  DeadLetter,
  deadLetterHeaders,
  lettersAskedFor,
  parseRedriveRequest,
  readRedriveLog,
  RedriveLogRecord,
  RedriveOutcome,
  RedriveRequest,
  redrivenHeaders,
  redrivesAfter,
  selectForRedrive,
} from '@app/dead-letters';
import { countRequests, fetchWaitMs, IdempotentProducer } from '@app/kafka';
import type { MessageAt } from './message-delivery';
import { setTimeout as sleep } from 'node:timers/promises';

/** The consumer's own delivery of one message, to its end (handled, a duplicate, or dead-lettered again). */
export type Redeliver = (at: MessageAt, heartbeat: () => Promise<void>) => Promise<RedriveOutcome | 'given-back'>;

/**
 * A service's side of a re-drive: it reads the requests an operator put on its request topic, picks
 * the letters from its own dead-letter topic (a request names letters, it cannot carry one), hands
 * each to its consumer's delivery as it was first read, and logs how each ended. Because no event
 * topic is written, whoever may ask can have handled again only what this service dead-lettered.
 */
export class RedriveRequests {
  private consumer?: Consumer;

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
    private readonly handledTopics: () => string[],
    private readonly producer: IdempotentProducer,
    private readonly redeliver: Redeliver,
    private readonly logger: Logger,
  ) {}

  /** Reads requests in a group of its own, one at a time; a request is committed once every letter it took is logged. */
  async start(): Promise<void> {
    const consumer = (this.consumer = countRequests(
      this.kafka.consumer({
        groupId: `${this.groupId}.redrives`,
        maxWaitTimeInMs: fetchWaitMs,
        allowAutoTopicCreation: false,
      }),
    ));
    await consumer.connect();
    await consumer.subscribe({ topics: [redriveRequestTopic(this.groupId)], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message, heartbeat }) => {
        const request = parseRedriveRequest(message.value);
        if (typeof request === 'string') this.logger.error(`a re-drive request at offset ${message.offset} was ignored: ${request}`);
        else await this.handle(request, heartbeat);
      },
    });
  }

  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch((error) => this.logger.warn(`disconnecting the re-drive consumer failed: ${(error as Error).message}`));
  }

  private async handle(request: RedriveRequest, heartbeat: () => Promise<void>): Promise<void> {
    const reader = `${this.groupId}.reader-`;
    // The letters it names by offset, alone: a topic of others' garbage is not read, let alone kept
    const [letters, done] = await Promise.all([lettersAskedFor(this.kafka, this.groupId, request, reader), readRedriveLog(this.kafka, this.groupId, reader)]);
    const { redriven, skipped } = selectForRedrive(letters, done, request);
    // Taken again after a stop: what it logged before counts as its own, not as skipped
    const earlier = [...done.values()].filter((entry) => entry.requestId === request.requestId).length;
    const taken = { kind: 'request', requestId: request.requestId, by: request.by, what: whatOf(request), total: redriven.length + earlier } as const;
    await this.log({ ...taken, skipped: skipped.length - earlier, finished: false, at: new Date().toISOString() });
    const ours = new Set(this.handledTopics());
    let handled = 0;
    for (const letter of redriven) {
      // Stopping, or a letter given back: the request stays uncommitted and is read again (at the next
      // start, or at once), and what was logged is skipped then — never dropped as if finished
      if (!this.consumer) throw new Error(`re-drive request ${request.requestId} left at ${handled} letter(s): the consumer is stopping`);
      if (!ours.has(letter.originalTopic)) {
        this.logger.warn(`dead letter ${letter.id} came from ${letter.originalTopic}, which this consumer does not read: left`);
        continue;
      }
      const outcome = await this.redeliver(atOriginal(letter), heartbeat);
      if (outcome === 'given-back') throw new Error(`re-drive request ${request.requestId} left at ${handled} letter(s): letter ${letter.id} was given back`);
      await this.log({
        deadLetter: letter.id,
        eventId: letter.eventId ?? null,
        originalTopic: letter.originalTopic,
        requestId: request.requestId,
        by: request.by,
        at: new Date().toISOString(),
        outcome,
      });
      handled++;
      await heartbeat();
      if (request.rate) await sleep(1000 / request.rate);
    }
    await this.log({ ...taken, skipped: skipped.length - earlier, finished: true, at: new Date().toISOString() });
    this.logger.log(`${request.by} had ${handled} dead letter(s) handled again (request ${request.requestId}); ${skipped.length} skipped`);
  }

  private async log(record: RedriveLogRecord): Promise<void> {
    const key = 'kind' in record ? `request:${record.requestId}` : record.deadLetter;
    await this.producer.send({ topic: redriveLogTopic(this.groupId), acks: -1, messages: [{ key, value: JSON.stringify(record) }] });
  }
}

/** What a request asks, as an operator reads it: its letter, or its filter. */
function whatOf(request: RedriveRequest): string {
  if (request.ids?.length === 1) return `letter ${request.ids[0]}`;
  const filter = [request.error && `every ${request.error} letter`, request.topic && `from ${request.topic}`].filter(Boolean).join(' ');
  return `${request.ids ? `${request.ids.length} letters: ` : ''}${filter || 'every letter'}`;
}

/** The letter as its consumer first read it: its topic, partition and offset, key, value and headers (one more re-drive counted). */
function atOriginal(letter: DeadLetter): MessageAt {
  return {
    topic: letter.originalTopic,
    partition: Number(letter.headers[deadLetterHeaders.partition] ?? 0),
    redrives: redrivesAfter(letter),
    message: {
      key: letter.key,
      value: letter.value,
      headers: redrivenHeaders(letter),
      offset: letter.headers[deadLetterHeaders.offset] ?? '0',
      timestamp: String(letter.failedAt),
      attributes: 0,
    },
  };
}
