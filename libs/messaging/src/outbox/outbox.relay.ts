import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Kafka, Message, TopicMessages } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { EventCodec } from '../event.codec';
import { IdempotentProducer } from '../idempotent-producer';
import { WorkerLoop } from '@app/timing';
import { failSpan } from '@app/tracing';
import { openPublishSpans } from './publish-spans';
import { outboxCommitted, outboxSignal } from './outbox-signal';

export interface RelayOptions {
  batchSize: number;
  /**
   * Bytes per Kafka request, at most. Each partition's rows travel as one record batch, which the
   * broker refuses past its message.max.bytes (1 MiB by default): a request kept under that is safe
   * whatever the partitioning. A broker that refuses a smaller batch halves this for the process.
   */
  maxBatchBytes?: number;
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

interface Encoded {
  row: OutboxRow;
  topic: string;
  message: Message;
  bytes: number;
}

export interface RelayStats {
  published: number;
  parked: number;
  failedRounds: number;
}

/** Kafka's per-record overhead (lengths, offsets, attributes), generously rounded up. */
const recordOverheadBytes = 80;

/** Any constant works: each service has its own database, so this lock is per service. */
export const relayLockKey = 7_140_001;

/**
 * Publishes outbox rows in id order with an idempotent producer (see IdempotentProducer), a whole batch per
 * request, and marks them published. Each batch runs in a transaction holding an advisory lock, so
 * that with several instances of a service exactly one publishes at a time and order per key holds;
 * when the publishing instance dies its transaction ends and another takes over. A crash between
 * Kafka's acknowledgement and the mark publishes the batch again: delivery is at least once and
 * consumers deduplicate by eventId.
 *
 * A batch is split into requests under `maxBatchBytes`; a row that the broker refuses on its own
 * for its size is parked (kept, marked, logged) and stops later rows of its own key only, until an
 * operator releases it (`npm run outbox -- release`) after raising the broker's limit.
 */
export class OutboxRelay {
  private readonly logger = new Logger('outbox-relay');
  private readonly producer: IdempotentProducer;
  private readonly loop: WorkerLoop;
  private lastPrune = 0;
  private maxBatchBytes: number;
  readonly stats: RelayStats = { published: 0, parked: 0, failedRounds: 0 };
  private readonly onCommit = () => this.loop.wake();

  constructor(
    private readonly knex: Knex,
    kafka: Kafka,
    private readonly codec: EventCodec,
    private readonly options: RelayOptions,
  ) {
    this.producer = new IdempotentProducer(kafka);
    this.maxBatchBytes = options.maxBatchBytes ?? 900_000;
    this.loop = new WorkerLoop(() => this.round(), { name: 'outbox-relay', logger: new Logger('outbox-relay'), pollIntervalMs: options.pollIntervalMs });
  }

  async start(): Promise<void> {
    await this.producer.connect();
    outboxSignal.on(outboxCommitted, this.onCommit);
    this.loop.start();
  }

  /** True while the loop runs (it keeps running through failures, backing off). */
  get running(): boolean {
    return this.loop.running;
  }

  /** Finishes the batch in flight, then disconnects. */
  async stop(): Promise<void> {
    outboxSignal.off(outboxCommitted, this.onCommit);
    await this.loop.stop();
    await this.producer.disconnect();
  }

  /** A full batch, or one cut short, means there may be more: the loop runs again at once. */
  private async round(): Promise<boolean> {
    try {
      const { more } = await this.publishBatch();
      await this.pruneIfDue();
      return more;
    } catch (error) {
      this.stats.failedRounds++;
      throw error;
    }
  }

  /**
   * One batch, in requests under the byte limit. Returns how many rows were published (0 when
   * another instance holds the lock) and whether rows may be left. Rows after a parked row of the
   * same key are not selected, so a key's order holds.
   */
  async publishBatch(): Promise<{ published: number; more: boolean }> {
    return this.knex.transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: Array<{ locked: boolean }> }>('select pg_try_advisory_xact_lock(?) as locked', [relayLockKey]);
      if (!rows[0].locked) return { published: 0, more: false };
      const batch: OutboxRow[] = await trx('outbox as o')
        .select('o.id', 'o.event_type', 'o.message_key', 'o.payload', 'o.headers')
        .whereNull('o.published_at')
        .whereNull('o.parked_at')
        .whereNotExists(
          trx('outbox as p').whereRaw('p.message_key = o.message_key').whereRaw('p.id < o.id').whereNotNull('p.parked_at').whereNull('p.published_at'),
        )
        .orderBy('o.id')
        .limit(this.options.batchSize);
      if (batch.length === 0) return { published: 0, more: false };
      const requests = splitByBytes(await this.encode(batch), this.maxBatchBytes);
      let published = 0;
      for (const request of requests) {
        const spans = openPublishSpans(request);
        try {
          await this.producer.sendBatch({ acks: -1, topicMessages: toTopicMessages(request) });
        } catch (error) {
          for (const span of spans) failSpan(span, error);
          if (!isTooLarge(error)) {
            if (published === 0) throw error;
            break; // keep what was sent; the rest goes next round
          }
          await this.refusedForSize(trx, request, error);
          return { published, more: true };
        } finally {
          for (const span of spans) span.end();
        }
        await trx('outbox')
          .whereIn(
            'id',
            request.map((e) => e.row.id),
          )
          .update({ published_at: trx.fn.now() });
        published += request.length;
        this.stats.published += request.length;
      }
      return { published, more: published < batch.length || batch.length === this.options.batchSize };
    });
  }

  /** A lone row too large is parked; several rows too large together mean our limit is above the broker's. */
  private async refusedForSize(trx: Knex.Transaction, request: Encoded[], error: unknown): Promise<void> {
    if (request.length > 1) {
      this.maxBatchBytes = Math.max(1024, Math.floor(this.maxBatchBytes / 2));
      this.logger.warn(`the broker refused ${request.length} rows as too large together; requests now stay under ${this.maxBatchBytes} bytes`);
      return;
    }
    const [{ row, topic, bytes }] = request;
    const reason = `${topic}: about ${bytes} bytes, refused by the broker (${(error as Error).message})`;
    await trx('outbox')
      .where({ id: row.id })
      .update({ parked_at: trx.fn.now(), park_reason: reason.slice(0, 1000) });
    this.stats.parked++;
    this.logger.error(`parked outbox row ${row.id} (${row.event_type}, key ${row.message_key}): ${reason}; later rows of its key wait for it`);
  }

  private async encode(batch: OutboxRow[]): Promise<Encoded[]> {
    const encoded: Encoded[] = [];
    for (const row of batch) {
      const value = await this.codec.encode(row.payload);
      const headerBytes = Object.entries(row.headers).reduce((sum, [k, v]) => sum + k.length + String(v).length, 0);
      const message = { key: row.message_key, value, headers: row.headers };
      encoded.push({
        row,
        topic: this.codec.topicFor(row.payload.eventType),
        message,
        bytes: value.length + row.message_key.length + headerBytes + recordOverheadBytes,
      });
    }
    return encoded;
  }

  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < Math.min(this.options.retentionMs, 60_000)) return;
    this.lastPrune = Date.now();
    const cutoff = new Date(Date.now() - this.options.retentionMs);
    const pruned = await this.knex('outbox').whereNotNull('published_at').where('published_at', '<', cutoff).delete();
    if (pruned) this.logger.log(`pruned ${pruned} published outbox rows older than ${cutoff.toISOString()}`);
  }
}

/** Consecutive runs of rows under `maxBytes` each; a row larger than that alone makes its own request. */
export function splitByBytes<T extends { bytes: number }>(rows: T[], maxBytes: number): T[][] {
  const requests: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const row of rows) {
    if (current.length > 0 && size + row.bytes > maxBytes) {
      requests.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += row.bytes;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/** Groups rows by topic keeping their order, which kafkajs keeps within each partition. */
function toTopicMessages(request: Encoded[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const { topic, message } of request) {
    const messages = byTopic.get(topic) ?? byTopic.set(topic, []).get(topic)!;
    messages.push(message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/** The broker's "too large" answers, wherever kafkajs wrapped them. */
function isTooLarge(error: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return false;
    seen.add(e);
    const { type, cause, originalError, errors } = e as { type?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
    if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE') return true;
    return visit(cause, depth + 1) || visit(originalError, depth + 1) || (Array.isArray(errors) && errors.some((x) => visit(x, depth + 1)));
  };
  return visit(error, 0);
}
