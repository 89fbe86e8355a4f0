import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { DomainEvent, EventType, eventTypes } from '@app/events';
import { BackoffPolicy, exponentialDelay } from '../backoff';
import { deadLetterMessage, deadLetterTopicFor } from '../dead-letters';
import { ErrorCode, errorCodeOf, isInfrastructureError, isRetriable, PlatformError } from '../errors';
import { EventCodec } from '../event.codec';
import { addToOutbox } from '../outbox/add-to-outbox';
import { ensureTopics } from '../topics';
import { EventHandler, EventHandlers, HandlerContext } from './event-handlers';
import { recordInInbox } from './record-in-inbox';

export interface ConsumerOptions {
  /** The consumer's name: the inbox's `consumer` column, and (behind the topic prefix) its group id. */
  name: string;
  handlers: EventHandlers;
  /** In-place attempts of a failing handler before its message is dead-lettered. */
  maxAttempts: number;
  retryBackoff: BackoffPolicy;
  topicPartitions: number;
  sessionTimeoutMs?: number;
}

export interface ConsumerStats {
  processed: number;
  duplicates: number;
  retried: number;
  deadLettered: number;
  /** Deliveries given back to kafkajs because a dependency was unreachable. */
  outages: number;
}

/**
 * Runs handlers exactly once per event id: for each message, in one transaction, the inbox row,
 * the handler's business rows and its outbox rows; the offset is resolved only after the commit. A
 * redelivered event finds its inbox row and is skipped. A message that cannot be decoded, or whose
 * handler fails permanently or keeps failing, goes to `<group>.dlq` and the partition moves on. An
 * outage (database, registry) is neither: the batch is retried until the outage ends.
 */
export class ConsumerRunner {
  readonly stats: ConsumerStats = { processed: 0, duplicates: 0, retried: 0, deadLettered: 0, outages: 0 };
  readonly groupId: string;
  private readonly logger: Logger;
  private readonly consumer: Consumer;
  private readonly producer: Producer;
  private assignment: Record<string, number[]> = {};

  constructor(
    private readonly knex: Knex,
    private readonly kafka: Kafka,
    private readonly codec: EventCodec,
    private readonly options: ConsumerOptions,
  ) {
    this.groupId = `${codec.topicPrefix}${options.name}`;
    this.logger = new Logger(`consumer ${options.name}`);
    const sessionTimeout = options.sessionTimeoutMs ?? 10_000;
    this.consumer = kafka.consumer({
      groupId: this.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout,
      heartbeatInterval: Math.max(500, Math.floor(sessionTimeout / 5)),
    });
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      this.assignment = payload.memberAssignment;
      this.logger.log(`joined ${this.groupId} with ${this.assignedPartitions()} partition(s) in ${payload.duration} ms`);
    });
  }

  /** How many partitions this instance was given at its last group join. */
  assignedPartitions(): number {
    return Object.values(this.assignment).reduce((sum, partitions) => sum + partitions.length, 0);
  }

  get deadLetterTopic(): string {
    return deadLetterTopicFor(this.groupId);
  }

  topics(): string[] {
    return this.handledTypes().map((type) => this.codec.topicFor(type));
  }

  async start(): Promise<void> {
    await ensureTopics(this.kafka, [
      ...this.topics().map((topic) => ({ topic, partitions: this.options.topicPartitions })),
      { topic: this.deadLetterTopic, partitions: 1 },
    ]);
    await this.producer.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.topics(), fromBeginning: true });
    await this.consumer.run({
      eachBatchAutoResolve: false,
      autoCommitInterval: 1000,
      autoCommitThreshold: 100,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Lets the batch in flight finish, commits its offsets, and leaves the group. */
  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.producer.disconnect();
  }

  private handledTypes(): EventType[] {
    return eventTypes.filter((type) => this.options.handlers[type] !== undefined);
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload) {
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) break;
      const outcome = await this.deliver(batch.topic, batch.partition, message);
      resolveOffset(message.offset);
      if (outcome === 'dead-lettered') {
        // Unlike a handled event, a dead letter has no inbox row to stop a redelivery from sending
        // it again: commit its offset at once.
        const next = (BigInt(message.offset) + 1n).toString();
        await commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }] });
      } else {
        await commitOffsetsIfNecessary();
      }
      await heartbeat();
    }
  }

  private async deliver(topic: string, partition: number, message: KafkaMessage): Promise<'handled' | 'dead-lettered'> {
    let event: DomainEvent;
    try {
      event = await this.codec.decode(message.value);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw this.outage(error);
      await this.deadLetter(topic, partition, message, error.code, error, 1);
      return 'dead-lettered';
    }
    const handler = this.options.handlers[event.eventType] as EventHandler<EventType> | undefined;
    if (!handler) return 'handled'; // another event type on a shared topic: not ours

    for (let attempt = 1; ; attempt++) {
      try {
        const firstTime = await this.knex.transaction(async (trx) => {
          const fresh = await recordInInbox(trx, {
            consumer: this.options.name,
            eventId: event.eventId,
            eventType: event.eventType,
            topic,
            partition,
            offset: message.offset,
          });
          if (fresh) await handler(event as never, this.contextFor(trx, topic, partition, message));
          return fresh;
        });
        if (firstTime) this.stats.processed++;
        else this.stats.duplicates++;
        return 'handled';
      } catch (error) {
        if (isInfrastructureError(error)) throw this.outage(error);
        if (!isRetriable(error) || attempt >= this.options.maxAttempts) {
          await this.deadLetter(topic, partition, message, errorCodeOf(error), error, attempt);
          return 'dead-lettered';
        }
        this.stats.retried++;
        const delay = exponentialDelay(attempt, this.options.retryBackoff);
        this.logger.warn(`${event.eventType} ${event.eventId} failed (attempt ${attempt}): ${(error as Error).message}; retrying in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** The message stays where it is: kafkajs retries the batch, and restarts the consumer if it must. */
  private outage(error: unknown): unknown {
    this.stats.outages++;
    this.logger.warn(`dependency unreachable, will retry: ${(error as Error).message}`);
    return error;
  }

  private contextFor(trx: Knex.Transaction, topic: string, partition: number, message: KafkaMessage): HandlerContext {
    const traceparent = message.headers?.traceparent?.toString();
    return { trx, topic, partition, offset: message.offset, publish: (event) => addToOutbox(trx, event, traceparent) };
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, errorCode: ErrorCode, error: unknown, attempts: number) {
    await this.producer.send({
      topic: this.deadLetterTopic,
      acks: -1,
      messages: [deadLetterMessage({ topic, partition, message, consumer: this.options.name, errorCode, error, attempts })],
    });
    this.stats.deadLettered++;
    this.logger.error(`dead-lettered ${topic}[${partition}]@${message.offset} after ${attempts} attempt(s): ${errorCode} ${(error as Error)?.message}`);
  }
}
