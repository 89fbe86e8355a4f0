import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Kafka, Message, Producer, TopicMessages } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { EventCodec } from '../event.codec';
import { WorkerLoop } from '../worker-loop';
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
  private readonly loop: WorkerLoop;
  private lastPrune = 0;
  private readonly onCommit = () => this.loop.wake();

  constructor(
    private readonly knex: Knex,
    kafka: Kafka,
    private readonly codec: EventCodec,
    private readonly options: RelayOptions,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    this.loop = new WorkerLoop(() => this.round(), { name: 'outbox-relay', pollIntervalMs: options.pollIntervalMs });
  }

  async start(): Promise<void> {
    await this.producer.connect();
    outboxSignal.on(outboxCommitted, this.onCommit);
    this.loop.start();
  }

  /** Finishes the batch in flight, then disconnects. */
  async stop(): Promise<void> {
    outboxSignal.off(outboxCommitted, this.onCommit);
    await this.loop.stop();
    await this.producer.disconnect();
  }

  /** A full batch means there may be more: the loop runs again at once. */
  private async round(): Promise<boolean> {
    const published = await this.publishBatch();
    await this.pruneIfDue();
    return published === this.options.batchSize;
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
}
