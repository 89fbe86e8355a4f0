import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { StartDueJobs, upsertJobs } from '../../jobs/upsert-job';

/** Quota's go-ahead: each job becomes due once its request is known too, and starts if it can. */
export async function recordDebits(events: Array<EventOf<'QuotaDebited'>>, { trx, traceparentOf }: BatchContext, startDue: StartDueJobs): Promise<void> {
  const facts = events.map((event) => ({ event, known: { debit_event_id: event.eventId }, traceparent: traceparentOf(event) }));
  await startDue(trx, await upsertJobs(trx, facts));
}
