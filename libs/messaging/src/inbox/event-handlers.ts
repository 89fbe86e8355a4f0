import type { Knex } from 'knex';
import type { DomainEvent, EventOf, EventType } from '@app/events';

export interface HandlerContext {
  /** The transaction the inbox row commits in: write every business row through it. */
  trx: Knex.Transaction;
  /** Adds an event to the outbox in the same transaction, carrying the incoming trace on, as this service's. */
  publish(event: DomainEvent): Promise<void>;
  /** Runs `then` once the transaction has committed (a worker's wake-up, a clean-up); never on rollback. */
  afterCommit(then: () => unknown): void;
  topic: string;
  partition: number;
  offset: string;
}

export type EventHandler<T extends EventType> = (event: EventOf<T>, context: HandlerContext) => Promise<void>;

/** One handler per event type a consumer reacts to; the consumer subscribes to exactly these topics. */
export type EventHandlers = { [T in EventType]?: EventHandler<T> };
