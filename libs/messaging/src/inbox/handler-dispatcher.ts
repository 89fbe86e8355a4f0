import { afterCommit } from '@app/database';
import type { Knex } from 'knex';
import type { Logger } from '@nestjs/common';
import { DomainEvent, EventType } from '@app/events';
import { failSpan, inOpenSpan, inSpan, openSpan, Span, traceparentOf, childTraceparent } from '@app/tracing';
import { addAllToOutbox, outboxWriteOf } from '../outbox/add-to-outbox';
import { ConsumedMessage, consumerSpanOptions, handlerContextFor, trustedTraceparent } from './consumed-message';
import { BatchContext, EventHandler, EventHandlers, isSetBased, SetBasedHandler } from './event-handlers';

/** An event read from Kafka, with where it came from, after its inbox row: whether the inbox had not seen it before. */
export interface InboxedMessage {
  event: DomainEvent;
  consumed: ConsumedMessage;
  firstTime: boolean;
}

/** A reaction that failed; `atFault` is the arrival that made it fail, when that is known. */
export class HandlerFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly atFault: number | undefined,
  ) {
    super((error as Error)?.message);
  }
}

/**
 * Runs a consumer's handler on arrivals of one event type, in one transaction: the new ones only,
 * in offset order. A set-based handler gets them all at once, each in a consumer span of its own
 * that its outbox rows continue; a one-at-a-time handler gets them in turn, each inside its span.
 */
export class HandlerDispatcher {
  constructor(
    private readonly consumer: string,
    private readonly handlers: EventHandlers,
    private readonly logger: Logger,
  ) {}

  handles(type: EventType): boolean {
    return this.handlers[type] !== undefined;
  }

  /** One arrival, inside the consumer span the caller has made active. */
  async dispatchOne(trx: Knex.Transaction, arrival: InboxedMessage): Promise<void> {
    if (arrival.firstTime) await this.reactAlone(trx, arrival);
    this.logArrival(arrival);
  }

  private async reactAlone(trx: Knex.Transaction, arrival: InboxedMessage): Promise<void> {
    const handler = this.handlerOf(arrival.event.eventType);
    if (isSetBased(handler)) await handler.handle([arrival.event], this.batchContext(trx, [arrival], [undefined]));
    else await handler(arrival.event as never, handlerContextFor(trx, arrival.consumed, arrival.event));
  }

  /**
   * Arrivals for one handler (of one partition, or merged from several), each partition's in
   * offset order; a failure says which arrival is at fault when it can.
   */
  async dispatchTogether(trx: Knex.Transaction, arrivals: InboxedMessage[]): Promise<void> {
    if (arrivals.length === 0) return;
    const handler = this.handlerOf(arrivals[0].event.eventType);
    if (!isSetBased(handler)) return this.oneAfterAnother(trx, handler, arrivals);
    const fresh = arrivals.filter((arrival) => arrival.firstTime);
    for (const copy of arrivals.filter((arrival) => !arrival.firstTime)) this.duplicateSpan(copy);
    if (fresh.length === 1) {
      // A batch of one runs inside its event's span, as a delivery on its own does.
      const only = fresh[0];
      await inSpan(`process ${only.event.eventType}`, consumerSpanOptions(only.event, only.consumed), async (span) => {
        span.setAttributes({ attempt: 1, delivery: 'handled' });
        await this.reactAlone(trx, only).catch((error) => {
          throw new HandlerFailure(error, arrivals.indexOf(only));
        });
        this.logArrival(only);
      });
    } else if (fresh.length > 1) await this.setBasedOver(trx, handler, fresh);
  }

  /** Many new events to a set-based handler: when it fails, which one is at fault is not known. */
  private async setBasedOver(trx: Knex.Transaction, handler: SetBasedHandler<EventType>, fresh: InboxedMessage[]) {
    const spans = fresh.map((arrival) => openSpan(`process ${arrival.event.eventType}`, consumerSpanOptions(arrival.event, arrival.consumed)));
    for (const span of spans) span.setAttributes({ attempt: 1, delivery: 'handled' });
    try {
      // Of several types when a projection's partitions were merged.
      const types = [...new Set(fresh.map((arrival) => arrival.event.eventType))].join(', ');
      const facts = { consumer: this.consumer, eventType: types, batchSize: fresh.length };
      await inSpan(`process ${fresh.length} ${types}`, { facts }, () =>
        handler.handle(
          fresh.map((arrival) => arrival.event),
          this.batchContext(trx, fresh, spans),
        ),
      );
    } catch (error) {
      for (const span of spans) failSpan(span, error);
      throw new HandlerFailure(error, undefined);
    } finally {
      for (const span of spans) span.end();
    }
    fresh.forEach((arrival, i) => inOpenSpan(spans[i], consumerSpanOptions(arrival.event, arrival.consumed).facts, () => this.logArrival(arrival)));
  }

  private async oneAfterAnother(trx: Knex.Transaction, handler: EventHandler<EventType>, arrivals: InboxedMessage[]) {
    for (const [index, arrival] of arrivals.entries()) {
      await inSpan(`process ${arrival.event.eventType}`, consumerSpanOptions(arrival.event, arrival.consumed), async (span) => {
        span.setAttributes({ attempt: 1, delivery: arrival.firstTime ? 'handled' : 'duplicate' });
        if (arrival.firstTime) {
          await handler(arrival.event as never, handlerContextFor(trx, arrival.consumed, arrival.event)).catch((error) => {
            throw new HandlerFailure(error, index);
          });
        }
        this.logArrival(arrival);
      });
    }
  }

  /**
   * `spans[i]` is the consumer span of `arrivals[i]` (undefined: the active one). An event published
   * continues the span of the arrival that caused it; without tracing, the trace its message carried.
   */
  private batchContext(trx: Knex.Transaction, arrivals: InboxedMessage[], spans: Array<Span | undefined>): BatchContext {
    const byEventId = new Map(arrivals.map((arrival, i) => [arrival.event.eventId, { arrival, span: spans[i] }]));
    const entriesOf = (events: DomainEvent[]) =>
      events.map((event) => {
        const cause = event.causationId ? byEventId.get(event.causationId) : undefined;
        const incoming = cause && trustedTraceparent(cause.arrival.event, cause.arrival.consumed.message);
        // Stamped with this consumer's service: a handler cannot write in another producer's name.
        return { event: { ...event, producer: this.consumer }, traceparent: traceparentOf(cause?.span) ?? childTraceparent(incoming, event.correlationId) };
      });
    return {
      trx,
      publish: (events) => addAllToOutbox(trx, entriesOf(events)),
      outboxWriteOf: (events) => outboxWriteOf(trx, entriesOf(events)),
      afterCommit: (then) => afterCommit(trx, then),
      traceparentOf: (event) => traceparentOf(byEventId.get(event.eventId)?.span),
    };
  }

  /** The span of a copy the inbox stopped, opened and ended at once, so that the copy shows in the trace and the log. */
  private duplicateSpan(copy: InboxedMessage): void {
    const options = consumerSpanOptions(copy.event, copy.consumed);
    const span = openSpan(`process ${copy.event.eventType}`, options);
    span.setAttributes({ attempt: 1, delivery: 'duplicate' });
    inOpenSpan(span, options.facts, () => this.logArrival(copy));
    span.end();
  }

  private handlerOf(type: EventType) {
    return this.handlers[type] as EventHandler<EventType> | SetBasedHandler<EventType>;
  }

  private logArrival({ event, firstTime, consumed }: InboxedMessage) {
    this.logger.debug(
      `${firstTime ? 'handled' : 'already handled'} ${event.eventType} from ${consumed.topic}[${consumed.partition}]@${consumed.message.offset}`,
    );
  }
}
