import type { Knex } from 'knex';
import type { DomainEvent, EventOf, EventType } from '@app/events';
import type { ConsumedBy, ServicePrincipal } from '@app/catalogue';
import type { OutboxWrite } from '../outbox/add-to-outbox';

export interface HandlerContext {
  /** The transaction the inbox row commits in: write every business row through it. */
  trx: Knex.Transaction;
  /**
   * Adds an event to the outbox in the same transaction, carrying the incoming trace on, as this
   * service's; `copyTo` names topics (behind the prefix) a copy goes to besides its own (a partner's).
   */
  publish(event: DomainEvent, copyTo?: string[]): Promise<void>;
  /** Runs `then` once the transaction has committed (a worker's wake-up, a clean-up); never on rollback. */
  afterCommit(then: () => unknown): void;
  topic: string;
  partition: number;
  offset: string;
}

/** A reaction to one event at a time: simple, and fine where events are few. */
export type EventHandler<T extends EventType> = (event: EventOf<T>, context: HandlerContext) => Promise<void>;

/** What a set-based reaction gets besides its events: one transaction for them all. */
export interface BatchContext {
  /** The transaction the batch's inbox rows commit in: write every business row through it. */
  trx: Knex.Transaction;
  /**
   * Adds the events to the outbox with one statement, as this service's; each continues the trace of
   * the incoming event it was caused by (its `causationId`).
   */
  publish(events: DomainEvent[]): Promise<void>;
  /**
   * The insert `publish` runs, not run, for the handler to write the events with its own rows by one
   * statement (a `with` of it); undefined for no events.
   */
  outboxWriteOf(events: DomainEvent[]): Promise<OutboxWrite | undefined>;
  /** Runs `then` once the transaction has committed (a worker's wake-up, a clean-up); never on rollback. */
  afterCommit(then: () => unknown): void;
  /** The trace context `event` is being handled in, for work that will run later in its name (a job's attempts). */
  traceparentOf(event: DomainEvent): string | undefined;
}

/**
 * A reaction to a batch's new events of one type, in offset order: it reads what it needs with one
 * statement per table, decides over them all, and writes with one statement per table. A batch of
 * one is a single event; a batch that fails is handed back to it one event at a time.
 */
export interface SetBasedHandler<T extends EventType> {
  readonly setBased: true;
  handle(events: Array<EventOf<T>>, context: BatchContext): Promise<void>;
}

export function setBased<T extends EventType>(handle: (events: Array<EventOf<T>>, context: BatchContext) => Promise<void>): SetBasedHandler<T> {
  return { setBased: true, handle };
}

/**
 * One handler per event type a consumer reacts to; the consumer subscribes to exactly these topics.
 * A set-based handler of any event (a projection) may stand for several types.
 */
export type EventHandlers = { [T in EventType]?: HandlerOf<T> };

type HandlerOf<T extends EventType> = EventHandler<T> | SetBasedHandler<T> | SetBasedHandler<EventType>;

/**
 * A service's handler map, typed from the catalogue (@app/catalogue's ConsumedBy): one handler for
 * each event the service consumes, none for another. An event added to what it consumes makes the
 * compiler point here.
 */
export type HandlersOf<S extends ServicePrincipal> = { [T in ConsumedBy<S>]: HandlerOf<T> };

export function isSetBased(handler: EventHandler<EventType> | SetBasedHandler<EventType>): handler is SetBasedHandler<EventType> {
  return (handler as SetBasedHandler<EventType>).setBased === true;
}
