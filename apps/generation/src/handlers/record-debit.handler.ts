import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { upsertJobs } from '../jobs/upsert-job';

/** Quota's go-ahead: each job becomes due once its request is known too. */
export async function recordDebits(
  events: Array<EventOf<'QuotaDebited'>>,
  { trx, afterCommit, traceparentOf }: BatchContext,
  wakeWorker: () => void,
): Promise<void> {
  const facts = events.map((event) => ({ event, known: { debit_event_id: event.eventId }, traceparent: traceparentOf(event) }));
  if (await upsertJobs(trx, facts)) afterCommit(wakeWorker);
}
