import type { Knex } from 'knex';

export interface InboxEntry {
  consumer: string;
  eventId: string;
  eventType: string;
  topic: string;
  partition: number;
  offset: string;
}

/** True when this is the first time the consumer sees the event; false for a duplicate. */
export async function recordInInbox(trx: Knex.Transaction, entry: InboxEntry): Promise<boolean> {
  const inserted = await trx('inbox')
    .insert({
      consumer: entry.consumer,
      event_id: entry.eventId,
      event_type: entry.eventType,
      topic: entry.topic,
      partition: entry.partition,
      offset: entry.offset,
    })
    .onConflict(['consumer', 'event_id'])
    .ignore()
    .returning('event_id');
  return inserted.length === 1;
}
