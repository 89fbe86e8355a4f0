import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Kafka } from 'kafkajs';
import type { Client } from 'pg';
import { EventCodec, IdempotentProducer } from '@app/kafka';
import { publishRun, Sent } from './publish-run';
import { WorkerLoop } from '@app/timing';
import { outboxCommitted, outboxSignal } from './outbox-signal';
import { Encoded, OutboxRow } from './relay-requests';
import { RelaySession } from './relay-session';
import { Acknowledged, markPublished, parkRow, parkRowsForRetry, readUnpublished } from './outbox-statements';

const acknowledged = ({ encoded, place }: Sent): Acknowledged => ({
  id: encoded.row.id,
  partition: place?.partition ?? null,
  offset: place?.offset ?? null,
});

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
  /** How soon copies their destination refused are tried again, at first (5 s unless told). */
  parkedRetryMs?: number;
}

export interface RelayStats {
  /** Rows marked published, counted once their mark committed. */
  published: number;
  parked: number;
  failedRounds: number;
}

function nextCommit(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Any constant works: each service has its own database, so this lock is per service. */
export const relayLockKey = 7_140_001;

/**
 * Publishes outbox rows in id order with an idempotent producer (see IdempotentProducer), a whole batch per
 * request, and marks them published with its next read. It reads and marks in a session of its own holding an advisory
 * lock (RelaySession), so that with several instances of a service exactly one publishes at a time
 * and order per key holds; when the publishing instance dies its session ends and another takes over.
 * A crash between Kafka's acknowledgement and the mark publishes those rows again: delivery is at
 * least once and consumers deduplicate by eventId.
 *
 * A batch is split into requests under `maxBatchBytes`; a row that the broker refuses on its own
 * for its size is parked (kept, marked, logged) and stops later rows of its own key only, until an
 * operator releases it (`npm run outbox -- release`) after raising the broker's limit. Copies
 * whose destination refuses them (a partner removed: its topic no longer ours to write) are parked
 * too, each destination in requests of its own so that no other destination waits, and tried again
 * later on their own, until it takes them (the partner added back).
 */
export class OutboxRelay {
  private readonly logger = new Logger('outbox-relay');
  private readonly producer: IdempotentProducer;
  private readonly loop: WorkerLoop;
  private lastPrune = 0;
  private maxBatchBytes: number;
  readonly stats: RelayStats = { published: 0, parked: 0, failedRounds: 0 };
  private readonly onCommit = () => {
    this.loop.wake();
    this.releaseCommitWaiters();
  };
  /** Resolved by the next commit of outbox rows in this process; a run waits on it while a request is with the broker. */
  private committed = nextCommit();
  private readonly session: RelaySession;
  /** Rows Kafka acknowledged and not yet marked: the next read marks them in the same statement. */
  private unmarked: Sent[] = [];

  constructor(
    private readonly knex: Knex,
    kafka: Kafka,
    private readonly codec: EventCodec,
    private readonly options: RelayOptions,
  ) {
    this.producer = new IdempotentProducer(kafka);
    // A live relay reads at least once a poll interval: a session idle for several is a hung instance's.
    this.session = new RelaySession(knex, relayLockKey, Math.max(10_000, 3 * options.pollIntervalMs));
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

  private releaseCommitWaiters(): void {
    const committed = this.committed;
    this.committed = nextCommit();
    committed.resolve();
  }

  /** Finishes the batch in flight, then disconnects. */
  async stop(): Promise<void> {
    outboxSignal.off(outboxCommitted, this.onCommit);
    await this.loop.stop();
    await this.markUnmarked().catch((error) =>
      this.logger.warn(`marking the last rows published failed (they will be published again): ${(error as Error).message}`),
    );
    await this.session.close();
    await this.producer.disconnect();
  }

  /** A run cut short, or one that read all the batches it may, means there may be more: the loop runs again at once. */
  private async round(): Promise<boolean> {
    try {
      const more = await this.publishRun();
      await this.pruneIfDue();
      return more;
    } catch (error) {
      this.stats.failedRounds++;
      // The session may be broken, or on a server that turned read-only: the next round opens another.
      await this.session.close();
      throw error;
    } finally {
      // The run's waits are over: settled now, they do not hold their handlers until this process commits again.
      this.releaseCommitWaiters();
    }
  }

  /** One run of publishRun under the lock; false when another instance holds it. */
  private async publishRun(): Promise<boolean> {
    const session = await this.session.locked();
    if (!session) return false;
    return publishRun(this.codec, this.producer, {
      batchSize: this.options.batchSize,
      maxBatchBytes: () => this.maxBatchBytes,
      read: (inFlight) => this.unpublished(session, inFlight),
      nextCommit: () => this.committed.promise,
      acknowledged: (rows) => this.unmarked.push(...rows),
      refusedForSize: (request, error) => this.refusedForSize(session, request, error),
      refusedDestination: (request, error) => this.refusedDestination(session, request, error),
    });
  }

  /** The first unpublished rows but `inFlight`; the read also marks what Kafka acknowledged since the last one. */
  private async unpublished(session: Client, inFlight: string[]): Promise<OutboxRow[]> {
    const marking = this.unmarked;
    const rows = await readUnpublished(this.knex, session, inFlight, this.options.batchSize, marking.map(acknowledged));
    this.marked(marking);
    return rows;
  }

  /** Marks what Kafka acknowledged without reading (the relay is stopping). */
  private async markUnmarked(): Promise<void> {
    if (this.unmarked.length === 0) return;
    const session = await this.session.locked();
    if (!session) return;
    const marking = this.unmarked;
    await markPublished(session, marking.map(acknowledged));
    this.marked(marking);
  }

  private marked(rows: Sent[]): void {
    this.unmarked = this.unmarked.filter((e) => !rows.includes(e));
    this.stats.published += rows.length;
  }

  /** A lone row too large is parked; several rows too large together mean our limit is above the broker's. */
  private async refusedForSize(session: Client, request: Encoded[], error: unknown): Promise<void> {
    if (request.length > 1) {
      this.maxBatchBytes = Math.max(1024, Math.floor(this.maxBatchBytes / 2));
      this.logger.warn(`the broker refused ${request.length} rows as too large together; requests now stay under ${this.maxBatchBytes} bytes`);
      return;
    }
    const [{ row, topic, bytes }] = request;
    const reason = `${topic}: about ${bytes} bytes, refused by the broker (${(error as Error).message})`;
    await parkRow(session, row.id, reason);
    this.stats.parked++;
    this.logger.error(`parked outbox row ${row.id} (${row.event_type}, key ${row.message_key}): ${reason}; later rows of its key wait for it`);
  }

  /** Copies refused by their destination wait to be tried again; nothing else waits for them. */
  private async refusedDestination(session: Client, request: Encoded[], error: unknown): Promise<void> {
    const reason = `${request[0].topic}: refused by the broker (${(error as Error).message})`;
    await parkRowsForRetry(
      session,
      request.map((e) => e.row.id),
      reason,
      this.options.parkedRetryMs ?? 5000,
    );
    this.stats.parked += request.length;
    this.logger.warn(`parked ${request.length} outbox row(s) for ${request[0].topic}, tried again later: ${reason}`);
  }

  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < Math.min(this.options.retentionMs, 60_000)) return;
    this.lastPrune = Date.now();
    const cutoff = new Date(Date.now() - this.options.retentionMs);
    const pruned = await this.knex('outbox').whereNotNull('published_at').where('published_at', '<', cutoff).delete();
    if (pruned) this.logger.log(`pruned ${pruned} published outbox rows older than ${cutoff.toISOString()}`);
  }
}
