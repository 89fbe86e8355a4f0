import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Kafka, Message, Producer, TopicMessages } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { exponentialDelay } from '../backoff';
import { EventCodec } from '../event.codec';
import { outboxCommitted, outboxSignal } from './outbox-signal';

export interface RelayOptions {
  batchSize: number;
  /** The fallback poll, for rows committed by other processes. */
  pollIntervalMs: number;
  /** Published rows older than this are deleted; the topics keep the events. */
  retentionMs: number;
}

interface OutboxRow {
  id: string;
  event_type: string;
  message_key: string;
  payload: DomainEvent;
  headers: Record<string, string>;
}

/** Any constant works: each service has its own database, so this lock is per service. */
export const relayLockKey = 7_140_001;

/**
 * Publishes outbox rows in id order with an idempotent producer (acks=all), a whole batch per
 * request, and marks them published. Each batch runs in a transaction holding an advisory lock, so
 * that with several instances of a service exactly one publishes at a time and order per key holds;
 * when the publishing instance dies its transaction ends and another takes over. A crash between
 * Kafka's acknowledgement and the mark publishes the batch again: delivery is at least once and
 * consumers deduplicate by eventId.
 */
export class OutboxRelay {
  private readonly logger = new Logger('outbox-relay');
  private readonly producer: Producer;
  private running = false;
  private loop?: Promise<void>;
  private wakeUp?: () => void;
  /** A commit hint that arrived while a batch was in flight: the next idle returns at once. */
  private hinted = false;
  private lastPrune = 0;
  /** False while backing off after a failure, so that a burst of commits cannot hammer a broken broker. */
  private listening = true;
  private readonly onCommit = () => {
    this.hinted = true;
    if (this.listening) this.wakeUp?.();
  };

  constructor(
    private readonly knex: Knex,
    kafka: Kafka,
    private readonly codec: EventCodec,
    private readonly options: RelayOptions,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  }

  async start(): Promise<void> {
    await this.producer.connect();
    this.running = true;
    outboxSignal.on(outboxCommitted, this.onCommit);
    this.loop = this.run();
  }

  /** Finishes the batch in flight, then disconnects. */
  async stop(): Promise<void> {
    this.running = false;
    outboxSignal.off(outboxCommitted, this.onCommit);
    this.wakeUp?.(); // also ends a failure backoff
    await this.loop;
    await this.producer.disconnect();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        const published = await this.publishBatch();
        failures = 0;
        await this.pruneIfDue();
        if (published < this.options.batchSize) await this.idle(this.options.pollIntervalMs);
      } catch (error) {
        failures++;
        const delay = exponentialDelay(failures, { initialMs: 200, maxMs: 10_000, jitter: 0.2 });
        this.logger.warn(`publishing failed (${(error as Error).message}); retrying in ${delay} ms`);
        this.listening = false;
        await this.idle(delay);
        this.listening = true;
      }
    }
  }

  /** One batch: returns how many rows were published (0 when another instance holds the lock). */
  async publishBatch(): Promise<number> {
    return this.knex.transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: Array<{ locked: boolean }> }>('select pg_try_advisory_xact_lock(?) as locked', [relayLockKey]);
      if (!rows[0].locked) return 0;
      const batch: OutboxRow[] = await trx('outbox')
        .select('id', 'event_type', 'message_key', 'payload', 'headers')
        .whereNull('published_at')
        .orderBy('id')
        .limit(this.options.batchSize);
      if (batch.length === 0) return 0;
      await this.producer.sendBatch({ acks: -1, topicMessages: await this.toTopicMessages(batch) });
      await trx('outbox')
        .whereIn('id', batch.map((row) => row.id))
        .update({ published_at: trx.fn.now() });
      return batch.length;
    });
  }

  /** Groups rows by topic keeping their order, which kafkajs keeps within each partition. */
  private async toTopicMessages(batch: OutboxRow[]): Promise<TopicMessages[]> {
    const byTopic = new Map<string, Message[]>();
    for (const row of batch) {
      const topic = this.codec.topicFor(row.payload.eventType);
      const messages = byTopic.get(topic) ?? byTopic.set(topic, []).get(topic)!;
      messages.push({ key: row.message_key, value: await this.codec.encode(row.payload), headers: row.headers });
    }
    return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
  }

  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < Math.min(this.options.retentionMs, 60_000)) return;
    this.lastPrune = Date.now();
    const cutoff = new Date(Date.now() - this.options.retentionMs);
    const pruned = await this.knex('outbox').whereNotNull('published_at').where('published_at', '<', cutoff).delete();
    if (pruned) this.logger.log(`pruned ${pruned} published outbox rows older than ${cutoff.toISOString()}`);
  }

  private idle(ms: number): Promise<void> {
    if ((this.hinted && this.listening) || !this.running) {
      this.hinted = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.hinted = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
