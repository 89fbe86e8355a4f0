import type { Knex } from 'knex';
import { afterCommit } from '@app/database';
import { DomainEvent } from '@app/events';
import { addToOutbox } from './add-to-outbox';
import { outboxCommitted, outboxSignal } from './outbox-signal';

/**
 * Publishes an event again under its own eventId, in the caller's transaction: consumers that had it
 * skip it by their inbox, and one that lost it (dead-lettered, or its offset moved past it) gets it
 * again. Its outbox row, if still there, goes back to unpublished; otherwise it is written anew.
 */
export async function republish(trx: Knex.Transaction, event: DomainEvent): Promise<void> {
  const reset = await trx('outbox').where({ event_id: event.eventId }).update({ published_at: null, parked_at: null, park_reason: null, parked_until: null });
  if (reset === 0) return addToOutbox(trx, event);
  afterCommit(trx, () => outboxSignal.emit(outboxCommitted));
}
