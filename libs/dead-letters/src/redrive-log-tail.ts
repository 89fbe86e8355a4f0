import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import { redriveLogTopic } from '@app/catalogue';
import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import { fetchWaitMs } from '@app/kafka';
import { parseRedriveLogRecord, RedriveLogEntry, RedriveRequestEntry } from './redrive-log';

const logger = new Logger('redrive-logs');

/** What one group's log says: each letter's last entry, each request as taken, and how far each request came. */
export interface RedriveLogView {
  letters: Map<string, RedriveLogEntry>;
  requests: Map<string, RedriveRequestEntry & { done: number; failedAgain: number }>;
}

/**
 * The re-drive logs of several groups, read by one consumer for as long as the reader lives: a page
 * or a progress poll asks the broker for the logs' end offsets (no consumer group) and waits until
 * the consumer has read that far, rather than reading each log whole in a group of its own each time.
 */
export class RedriveLogTail {
  private readonly views = new Map<string, RedriveLogView>();
  private readonly read = new Map<string, number>();
  private consumer?: Consumer;
  private admin?: Admin;
  private topics: string[] = [];
  private started = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly groupIds: string[],
    private readonly readerGroupPrefix: string,
  ) {
    for (const groupId of groupIds) this.views.set(redriveLogTopic(groupId), { letters: new Map(), requests: new Map() });
  }

  /** Follows the logs, trying again every few seconds while the broker cannot be reached (the reader starts without it). */
  async start(retryMs = 5000): Promise<void> {
    for (;;) {
      try {
        await this.follow();
        this.started = true;
        return;
      } catch (error) {
        logger.warn(`following the re-drive logs failed (${(error as Error).message}); trying again in ${retryMs} ms`);
        await this.consumer?.disconnect().catch(letGo('a half-started log reader is let go', logger));
        await this.admin?.disconnect().catch(letGo('a half-started admin client is let go', logger));
        if (this.stopped) return;
        await sleep(retryMs);
      }
    }
  }

  private stopped = false;

  private async follow(): Promise<void> {
    this.admin = this.kafka.admin();
    await this.admin.connect();
    const existing = new Set(await this.admin.listTopics());
    this.topics = this.groupIds.map(redriveLogTopic).filter((topic) => existing.has(topic));
    if (this.topics.length === 0) return;
    const consumer = (this.consumer = this.kafka.consumer({ groupId: `${this.readerGroupPrefix}redrive-log-${randomUUID()}`, maxWaitTimeInMs: fetchWaitMs }));
    await consumer.connect();
    await consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const view = this.views.get(batch.topic)!;
        for (const message of batch.messages) this.take(view, message.value);
        if (batch.messages.length > 0) this.read.set(`${batch.topic}:${batch.partition}`, Number(batch.lastOffset()) + 1);
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect();
    await this.admin?.disconnect();
  }

  /** One group's log as it stands now: waits (up to `timeoutMs`) until everything written before the call is read. */
  async view(groupId: string, timeoutMs = 5000): Promise<RedriveLogView> {
    const topic = redriveLogTopic(groupId);
    const view = this.views.get(topic);
    if (!view) throw new Error(`${groupId}'s re-drive log is not one this reader follows`);
    const deadline = Date.now() + timeoutMs;
    while (!this.started && Date.now() < deadline) await sleep(50);
    if (!this.started || !this.admin) throw new Error('the re-drive logs are not read yet: is the broker reachable?');
    if (!this.topics.includes(topic)) return view;
    const ends = await this.admin.fetchTopicOffsets(topic);
    const behind = () => ends.some((p) => Number(p.high) > Number(p.low) && (this.read.get(`${topic}:${p.partition}`) ?? Number(p.low)) < Number(p.high));
    while (behind() && Date.now() < deadline) await sleep(50);
    return view;
  }

  private take(view: RedriveLogView, value: Buffer | null): void {
    const record = parseRedriveLogRecord(value);
    if (!record) return;
    if ('kind' in record) {
      const before = view.requests.get(record.requestId);
      view.requests.set(record.requestId, { ...record, done: before?.done ?? 0, failedAgain: before?.failedAgain ?? 0 });
      return;
    }
    view.letters.set(record.deadLetter, record);
    const request = view.requests.get(record.requestId);
    if (request) {
      request.done++;
      if (record.outcome === 'dead-lettered') request.failedAgain++;
    }
  }
}
