import { letGo } from '@app/failures';
import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Consumer, Kafka } from 'kafkajs';
import { eventTypes } from '@app/events';
import { deadLetterTopicFor, redriveLogTopic, redriveRequestTopic } from '@app/catalogue';
import { exponentialDelay } from '@app/timing';
import { ensureTopics, EventCodec, IdempotentProducer } from '@app/kafka';
import { ConsumerProgress } from './consumer-progress';
import { BatchMerger } from './batch-merger';
import { BatchParts, handleBatch } from './batch-handling';
import { ConsumerStats, MessageAt, MessageDelivery } from './message-delivery';
import { OffsetCommits } from './offset-commits';
import { RedriveRequests } from './redrive-requests';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConsumerOptions, ConsumerStatus } from './consumer-options';
import { carryOffsetsOver, groupConsumer } from './group-consumer';

export type { ConsumerOptions, ConsumerStatus } from './consumer-options';
export type { ConsumerStats } from './message-delivery';
/** Messages of several partitions handled in one transaction at most (see BatchMerger). */
const maxMerged = 200;
/** How often handled messages' offsets are committed (see OffsetCommits). */
const commitIntervalMs = 1000;

/**
 * Runs handlers exactly once per event id: for each message, in one transaction, the inbox row,
 * the handler's business rows and its outbox rows; the offset is resolved only after the commit. A
 * redelivered event finds its inbox row and is skipped. A message that cannot be decoded, or whose
 * handler fails permanently or keeps failing, goes to `<group>.dlq` and the partition moves on. An
 * outage (database, registry) is neither: the message waits in place, heartbeating, until it ends.
 */
export class ConsumerRunner {
  readonly groupId: string;
  /** The service's own group: its dead letters and re-drive requests are named for it. */
  private readonly serviceGroupId: string;
  status: ConsumerStatus = 'stopped';
  /** OffsetCommit requests this runner's consumers sent: about one an interval while busy, never one a batch. */
  offsetCommitRequests = 0;
  /** Why the consumer is not joined, when it is not. */
  lastError?: string;
  private readonly logger: Logger;
  private consumer?: Consumer;
  private readonly producer: IdempotentProducer;
  private assignment: Record<string, number[]> = {};
  private keepRunning = false;
  private stopping = false;
  private running?: Promise<void>;
  private wakeRunner?: () => void;
  private readonly delivery: MessageDelivery;
  private readonly merger: BatchMerger;
  private readonly progress: ConsumerProgress;
  private readonly redrives?: RedriveRequests;
  private readonly offsets: OffsetCommits;
  private readonly batchParts: BatchParts;
  private extraTopics: string[] = [];
  private topicsWatch?: NodeJS.Timeout;

  constructor(
    knex: Knex,
    private readonly kafka: Kafka,
    private readonly codec: EventCodec,
    private readonly options: ConsumerOptions,
  ) {
    this.serviceGroupId = `${codec.topicPrefix}${options.name}`;
    this.groupId = `${codec.topicPrefix}${options.group ?? options.name}`;
    this.logger = new Logger(`consumer ${options.name}`);
    this.offsets = new OffsetCommits(commitIntervalMs, this.logger);
    this.producer = new IdempotentProducer(kafka);
    this.delivery = new MessageDelivery(knex, codec, this.producer, this.deadLetterTopic, this.logger, options);
    this.merger = new BatchMerger((parts) => this.delivery.deliverMerged(parts), maxMerged);
    const { handlers } = options;
    this.batchParts = { handlers, codec, merger: this.merger, delivery: this.delivery, offsets: this.offsets, stopping: () => this.stopping };
    const progress = options.progress ?? { intervalMs: 10_000, stallAfterMs: 120_000 };
    this.progress = new ConsumerProgress(kafka, this.groupId, () => this.assignment, progress, this.logger);
    // A dead letter asked for again goes through the same delivery as when it was first read.
    const redeliver = (at: MessageAt, heartbeat: () => Promise<void>) => this.delivery.deliver(at, { heartbeat, stillOurs: () => this.keepRunning });
    // Re-drives are the service's own group's: it takes a dead letter of every handled type, its bookkeeping's too.
    if (!this.isBookkeeping) this.redrives = new RedriveRequests(kafka, this.groupId, () => this.topics(eventTypes), this.producer, redeliver, this.logger);
  }

  /** The partitions this instance holds that have had lag without progress past the threshold, each as a sentence. */
  stalledPartitions(): string[] {
    return this.progress.stalled();
  }

  /** Reads the lag from the broker now, rather than at the next tick. */
  readProgress(): Promise<void> {
    return this.progress.read();
  }

  get stats(): ConsumerStats {
    return this.delivery.stats;
  }

  private newConsumer(): Consumer {
    const consumer = groupConsumer(this.kafka, this.groupId, this.options);
    const { GROUP_JOIN, REBALANCING, CRASH, STOP, REQUEST } = consumer.events;
    consumer.on(REQUEST, ({ payload }) => void (payload.apiName === 'OffsetCommit' && this.offsetCommitRequests++));
    consumer.on(GROUP_JOIN, ({ payload }) => {
      this.assignment = payload.memberAssignment;
      this.status = 'joined';
      this.lastError = undefined;
      this.logger.log(`joined ${this.groupId} with ${this.assignedPartitions()} partition(s) in ${payload.duration} ms`);
    });
    consumer.on(REBALANCING, () => {
      if (this.status === 'joined') this.status = 'rebalancing';
    });
    consumer.on(CRASH, ({ payload }) => {
      this.lastError = payload.error.message;
      if (payload.restart) {
        this.status = 'rebalancing';
        return;
      }
      // kafkajs gave up on this consumer: start a new one, from the committed offsets.
      this.status = 'crashed';
      this.logger.error(`the consumer crashed and kafkajs will not restart it: ${payload.error.message}; starting it again`);
      this.wakeRunner?.();
    });
    consumer.on(STOP, () => {
      if (this.status !== 'crashed') this.status = 'stopped';
    });
    return consumer;
  }

  /** How many partitions this instance was given at its last group join. */
  assignedPartitions(): number {
    return Object.values(this.assignment).reduce((sum, partitions) => sum + partitions.length, 0);
  }

  get deadLetterTopic(): string {
    return deadLetterTopicFor(this.serviceGroupId);
  }

  private get isBookkeeping(): boolean {
    return this.groupId !== this.serviceGroupId;
  }

  /** The topics it reads: of the handled types among `reads`, and the extra ones. */
  topics(reads = this.options.reads ?? eventTypes): string[] {
    const handled = eventTypes.filter((type) => this.options.handlers[type] !== undefined && reads.includes(type));
    return [...handled.map((type) => this.codec.topicFor(type)), ...this.extraTopics];
  }

  /**
   * Asks `moreTopics` again and, when they changed, leaves the group and joins it again with them
   * (kafkajs reads a subscription's topics once): what a new partner's topics take. Handled offsets
   * are committed first. A consumer not joined reads them at its next start.
   */
  private async followMoreTopics(): Promise<void> {
    if (!this.options.moreTopics || this.status !== 'joined') return;
    const keep = letGo('its other topics could not be listed: it keeps those it has', this.logger, { level: 'warn', fallback: this.extraTopics });
    const topics = [...(await this.options.moreTopics().catch(keep))].sort();
    if (topics.join() === this.extraTopics.join() || this.status !== 'joined') return;
    this.logger.log(`topics changed (${topics.length} besides its own): joining again`);
    await this.disconnectConsumer();
    this.wakeRunner?.();
  }

  /**
   * Starts the consumer and keeps it running until `stop()`: a start that fails (the broker is
   * unreachable, provisioning times out) and a consumer that kafkajs gives up on are started again
   * after a backoff, and `status` says meanwhile that it is not doing its work.
   */
  run(): void {
    if (this.running) return;
    this.keepRunning = true;
    this.running = this.keepStarted();
  }

  private async keepStarted(): Promise<void> {
    for (let failures = 0; this.keepRunning;) {
      if (this.status !== 'crashed') {
        try {
          await this.start();
          failures = 0;
          await new Promise<void>((resolve) => (this.wakeRunner = resolve)); // until it crashes or stops
          continue;
        } catch (error) {
          this.status = 'crashed';
          this.lastError = (error as Error).message;
        }
      }
      failures++;
      await this.disconnectConsumer();
      if (!this.keepRunning) break;
      const delay = exponentialDelay(failures, { initialMs: 500, maxMs: 15_000, jitter: 0.2 });
      this.logger.warn(`the consumer is not running (${this.lastError}); starting it again in ${delay} ms`);
      await sleep(delay);
      this.status = 'stopped';
    }
  }

  /** One start: provisions its topics, connects, subscribes and runs; throws when any step fails. */
  async start(): Promise<void> {
    this.status = 'starting';
    this.stopping = false;
    this.progress.start();
    this.extraTopics = [...((await this.options.moreTopics?.()) ?? [])].sort();
    await ensureTopics(
      this.kafka,
      [
        ...this.topics().map((topic) => ({ topic, partitions: this.options.topicPartitions })),
        ...[this.deadLetterTopic, redriveRequestTopic(this.serviceGroupId), redriveLogTopic(this.serviceGroupId)].map((topic) => ({ topic, partitions: 1 })),
      ],
      3,
      undefined,
      { create: this.options.createTopics ?? false },
    );
    await this.producer.connect();
    const consumer = (this.consumer = this.newConsumer());
    if (this.isBookkeeping) await carryOffsetsOver(this.kafka, this.serviceGroupId, this.groupId, this.topics(), this.logger);
    await consumer.connect();
    await consumer.subscribe({ topics: this.topics(), fromBeginning: true });
    await consumer.run({
      eachBatchAutoResolve: false,
      autoCommit: false,
      partitionsConsumedConcurrently: this.options.partitionsConcurrently ?? 1,
      eachBatch: (payload) => handleBatch(payload, this.batchParts),
    });
    await this.redrives?.start();
    this.offsets.start();
    if (this.options.moreTopics) this.topicsWatch ??= setInterval(() => void this.followMoreTopics(), this.options.moreTopicsEveryMs ?? 10_000);
  }

  /** Lets the batch in flight finish, commits its offsets, and leaves the group. */
  async stop(): Promise<void> {
    this.keepRunning = false;
    this.stopping = true;
    clearInterval(this.topicsWatch);
    await this.progress.stop();
    this.wakeRunner?.();
    await this.running;
    await this.disconnectConsumer();
    await this.producer.disconnect();
    this.status = 'stopped';
  }

  private async disconnectConsumer(): Promise<void> {
    await this.redrives?.stop();
    this.offsets.stop();
    const consumer = this.consumer;
    this.consumer = undefined;
    if (!consumer) return;
    await this.offsets.commitResolved();
    await consumer.disconnect().catch((error) => this.logger.warn(`disconnecting the consumer failed: ${(error as Error).message}`));
    // Its group's client is gone: a commit through it would connect a client nobody disconnects.
    this.offsets.forget();
  }
}
