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
  const [firstTime] = await recordAllInInbox(trx, [entry]);
  return firstTime;
}

/**
 * The inbox rows of several messages in one statement; for each, whether the consumer sees its event
 * for the first time. An event twice among them (a copy in the same batch) is new only at its first
 * place. Event ids are compared as the uuids they are, whatever their letters' case.
 */
export async function recordAllInInbox(trx: Knex.Transaction, entries: InboxEntry[]): Promise<boolean[]> {
  const inserted: Array<{ event_id: string }> = await trx('inbox')
    .insert(
      entries.map((entry) => ({
        consumer: entry.consumer,
        event_id: entry.eventId,
        event_type: entry.eventType,
        topic: entry.topic,
        partition: entry.partition,
        offset: entry.offset,
      })),
    )
    .onConflict(['consumer', 'event_id'])
    .ignore()
    .returning('event_id');
  const fresh = new Set(inserted.map((row) => row.event_id.toLowerCase()));
  return entries.map((entry) => fresh.delete(entry.eventId.toLowerCase()));
}
