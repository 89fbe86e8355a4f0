import { letGo } from '@app/failures';
import { consumerMessages, consumerTransactionMessages, consumerTransactions, deadLetters, inboxDuplicates, retries } from '@app/metrics';
import type { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import { BackoffPolicy, exponentialDelay } from '@app/timing';
import { errorCodeOf, isInfrastructureError, isRetriable, PlatformError } from '@app/failures';
import { EventCodec, type IdempotentProducer } from '@app/kafka';
import { failSpan, inSpan, keepSpan, Span } from '@app/tracing';
import { commitInOneTransaction } from './commit-in-one-transaction';
import { ConsumedMessage, consumerSpanOptions, inboxEntryOf } from './consumed-message';
import { GivenUp, sendToDeadLetters } from './dead-letter';
import { HandlerDispatcher } from './handler-dispatcher';
import { EventHandlers } from './event-handlers';
import { PartitionMessages, PartitionOutcome } from './batch-merger';
import { pauseHeartbeating } from './pause-heartbeating';
import { DecodedMessage, decodeInOrder } from './decode-in-order';
import { recordInInbox } from './record-in-inbox';
import { decodeConsumed } from './decode-consumed';

export type Delivery = 'handled' | 'duplicate' | 'dead-lettered' | 'given-back';

/** What a delivery needs of its batch: to heartbeat while it waits, and to know the batch is still its own. */
export interface BatchControl {
  heartbeat(): Promise<void>;
  stillOurs(): boolean;
}

export interface ConsumerStats {
  processed: number;
  duplicates: number;
  retried: number;
  deadLettered: number;
  /** Deliveries given back to kafkajs because a dependency was unreachable. */
  outages: number;
}

export interface DeliveryOptions {
  name: string;
  handlers: EventHandlers;
  maxAttempts: number;
  retryBackoff: BackoffPolicy;
  outageMaxDelayMs?: number;
}

/** Where a message was read: the delivery adds which consumer read it. */
export type MessageAt = Omit<ConsumedMessage, 'consumer'>;

/**
 * One consumer's handling of one message: decoded, then, in one transaction, its inbox row and its
 * handler's rows; retried in place while the handler fails transiently, dead-lettered when it cannot
 * be decoded or keeps failing, and waited out, never dead-lettered, while a dependency is down.
 */
export class MessageDelivery {
  readonly stats: ConsumerStats = { processed: 0, duplicates: 0, retried: 0, deadLettered: 0, outages: 0 };
  private readonly dispatcher: HandlerDispatcher;

  constructor(
    private readonly knex: Knex,
    private readonly codec: EventCodec,
    private readonly producer: IdempotentProducer,
    private readonly deadLetterTopic: string,
    private readonly logger: Logger,
    private readonly options: DeliveryOptions,
  ) {
    this.dispatcher = new HandlerDispatcher(options.name, options.handlers, logger);
  }

  /**
   * One message to its end: handled, dead-lettered, or given back unprocessed when the batch stops
   * being ours. An outage (database, registry) is waited out in place however long it lasts, with
   * backoff and heartbeats; it never counts as an attempt and never dead-letters.
   */
  async deliver(at: MessageAt, control: BatchControl, failedTogether?: unknown): Promise<Delivery> {
    const consumed: ConsumedMessage = { consumer: this.options.name, ...at };
    for (let outages = 1; ; outages++) {
      // An attempt can itself wait long (a connection the database will not give): heartbeat meanwhile.
      const missed = letGo('a heartbeat during a long attempt failed; the next one tries again', this.logger);
      const beat = setInterval(() => void control.heartbeat().catch(missed), 1000);
      const timer = consumerMessages.startTimer({ consumer: this.options.name });
      try {
        const delivered = await this.tryDeliver(consumed, control, outages === 1 ? failedTogether : undefined);
        if (delivered !== 'given-back') timer({ result: delivered });
        return delivered;
      } catch (error) {
        if (!isInfrastructureError(error)) throw error;
        this.stats.outages++;
        retries.inc({ kind: 'outage' });
        const delay = exponentialDelay(outages, { ...this.options.retryBackoff, maxMs: this.options.outageMaxDelayMs ?? 10_000 });
        this.logger.warn(`${where(consumed)}: a dependency is unavailable (${(error as Error).message}); trying again in ${delay} ms`);
        if (!(await pauseHeartbeating(delay, control))) return 'given-back';
      } finally {
        clearInterval(beat);
      }
    }
  }

  private async tryDeliver(consumed: ConsumedMessage, control: BatchControl, failedTogether: unknown): Promise<Delivery> {
    let arrival: DecodedMessage;
    try {
      arrival = { event: await decodeConsumed(this.codec, consumed), consumed };
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      await this.deadLetter(consumed, { errorCode: error.code, error, attempts: 1 });
      return 'dead-lettered';
    }
    if (!this.dispatcher.handles(arrival.event.eventType)) return 'handled'; // cannot happen since values must match their topic; kept as a guard
    // Delivered alone after a failure, or asked for again: a span kept whatever the trace share.
    const options = consumerSpanOptions(arrival.event, consumed);
    return inSpan(`process ${arrival.event.eventType}`, { ...options, facts: { ...options.facts, [keepSpan]: true } }, (span) =>
      this.attempt(arrival, control, span, failedTogether),
    );
  }

  /**
   * The handler in its transaction with the inbox row, retried in place while it fails transiently.
   * Its own loop, not retry(): the wait heartbeats and may give the partition back, and the last
   * failure is dead-lettered rather than thrown.
   */
  private async attempt(arrival: DecodedMessage, control: BatchControl, span: Span, failedTogether: unknown): Promise<Delivery> {
    const { event, consumed } = arrival;
    for (let attempt = 1; ; attempt++) {
      span.setAttribute('attempt', attempt);
      try {
        // The first attempt was made with the batch: its failure counts, the handler does not run again for it.
        if (attempt === 1 && failedTogether !== undefined && !isInfrastructureError(failedTogether)) throw failedTogether;
        const firstTime = await this.knex.transaction((trx) => this.handleIn(trx, arrival));
        span.setAttribute('delivery', firstTime ? 'handled' : 'duplicate');
        return this.counted(firstTime);
      } catch (error) {
        if (isInfrastructureError(error)) throw error;
        if (!isRetriable(error) || attempt >= this.options.maxAttempts) {
          failSpan(span, error);
          await this.deadLetter(consumed, { errorCode: errorCodeOf(error), error, attempts: attempt });
          return 'dead-lettered';
        }
        this.stats.retried++;
        retries.inc({ kind: 'consumer' });
        const delay = exponentialDelay(attempt, this.options.retryBackoff);
        this.logger.warn(`${event.eventType} ${event.eventId} failed (attempt ${attempt}): ${(error as Error).message}; retrying in ${delay} ms`);
        if (!(await pauseHeartbeating(delay, control))) return 'given-back';
      }
    }
  }

  /** The inbox row, and the handler when the event is new to this consumer; true when it was. */
  private async handleIn(trx: Knex.Transaction, arrival: DecodedMessage) {
    const firstTime = await recordInInbox(trx, inboxEntryOf(arrival.event, arrival.consumed));
    await this.dispatcher.dispatchOne(trx, { ...arrival, firstTime });
    return firstTime;
  }

  /**
   * Messages of one partition in one transaction: all decoded first, their inbox rows written by one
   * statement, then the new ones handed to the handler together, in offset order — one commit and one
   * inbox round trip for them all, and, for a set-based handler, one statement per table. `handled`
   * says how many, from the first, were committed. A message that cannot be decoded ends the batch
   * before it: those before it are handled together, and it is named as the failure. Anything else
   * that fails (the handler throws, a dependency is down, the commit) rolls them all back, and is
   * named so that the caller delivers them one by one up to it, that one with `failedTogether`; when
   * the one at fault is not known, all of them, none with a failed attempt.
   */
  async deliverPartition(part: PartitionMessages): Promise<PartitionOutcome> {
    const decoded = await decodeInOrder(this.codec, this.options.name, part);
    if (decoded.arrivals.length === 0) return { handled: 0, failure: decoded.undecodable };
    const failure = await this.committedTogether(decoded.arrivals);
    return failure ? { handled: 0, failure } : { handled: decoded.arrivals.length, failure: decoded.undecodable };
  }

  /**
   * Several partitions' messages for one reaction (see BatchMerger) in one transaction, each
   * partition's in offset order. When that transaction fails, each partition is delivered on its
   * own as deliverPartition does, so that what is at fault is found as it would have been.
   */
  async deliverMerged(parts: PartitionMessages[]): Promise<PartitionOutcome[]> {
    if (parts.length === 1) return [await this.deliverPartition(parts[0])];
    const decoded = await Promise.all(parts.map((part) => decodeInOrder(this.codec, this.options.name, part)));
    const arrivals = decoded.flatMap((part) => part.arrivals);
    if (arrivals.length > 0 && (await this.committedTogether(arrivals)) !== undefined) {
      const outcomes: PartitionOutcome[] = [];
      for (const part of parts) outcomes.push(await this.deliverPartition(part));
      return outcomes;
    }
    return decoded.map((part) => ({ handled: part.arrivals.length, failure: part.undecodable }));
  }

  /** commitInOneTransaction, counted; the failure, if any. */
  private async committedTogether(arrivals: DecodedMessage[]) {
    const started = process.hrtime.bigint();
    const commit = await commitInOneTransaction(this.knex, this.dispatcher, arrivals);
    if ('failure' in commit) return commit.failure;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9 / arrivals.length;
    consumerTransactions.inc();
    consumerTransactionMessages.inc(arrivals.length);
    for (const firstTime of commit.firstTimes) consumerMessages.observe({ consumer: this.options.name, result: this.counted(firstTime) }, seconds);
    return undefined;
  }

  /** Counts a message handled for the first time, or a copy the inbox stopped. */
  private counted(firstTime: boolean): 'handled' | 'duplicate' {
    if (firstTime) this.stats.processed++;
    else {
      this.stats.duplicates++;
      inboxDuplicates.inc({ consumer: this.options.name });
    }
    return firstTime ? 'handled' : 'duplicate';
  }

  private async deadLetter(consumed: ConsumedMessage, why: GivenUp) {
    await sendToDeadLetters(this.producer, this.deadLetterTopic, consumed, why);
    this.stats.deadLettered++;
    deadLetters.inc({ consumer: this.options.name, reason: why.errorCode });
    this.logger.error(`dead-lettered ${where(consumed)} after ${why.attempts} attempt(s): ${why.errorCode} ${(why.error as Error)?.message}`);
  }
}

const where = ({ topic, partition, message }: ConsumedMessage) => `${topic}[${partition}]@${message.offset}`;
