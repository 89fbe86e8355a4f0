import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { DomainEvent } from '@app/events';
import { commitInOneTransaction } from './commit-in-one-transaction';
import type { EventHandlers } from './event-handlers';
import { HandlerDispatcher } from './handler-dispatcher';

/**
 * Events of one type handed to a consumer's handlers as the delivery hands a batch over — their inbox rows, then
 * the new ones to their reaction, in one transaction that publishes through the real outbox — but
 * read from no broker: for a reaction's own int spec, which sees what it writes and publishes. Says
 * which events were new to the inbox; throws what the reaction threw. `topic` is the topic they are
 * said to come from (a partner's, say).
 */
export async function reactWithoutBroker(knex: Knex, consumer: string, handlers: EventHandlers, events: DomainEvent[], topic?: string): Promise<boolean[]> {
  const arrivals = events.map((event, i) => ({
    event,
    consumed: {
      consumer,
      topic: topic ?? `${event.eventType} (no broker)`,
      partition: 0,
      message: { key: null, value: null, offset: String(i), timestamp: '0', attributes: 0, headers: {} },
    },
  }));
  const commit = await commitInOneTransaction(knex, new HandlerDispatcher(consumer, handlers, new Logger(consumer)), arrivals);
  if ('failure' in commit) throw commit.failure.error ?? new Error(`the batch of ${events.length} failed at its commit`);
  return commit.firstTimes;
}
