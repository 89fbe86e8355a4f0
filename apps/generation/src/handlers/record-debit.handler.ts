import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { upsertJob } from '../jobs/upsert-job';

/** Quota's go-ahead: the job becomes due once the request is known too. */
export async function recordDebit(event: EventOf<'QuotaDebited'>, { trx, afterCommit }: HandlerContext, wakeWorker: () => void): Promise<void> {
  if (await upsertJob(trx, event, { debit_event_id: event.eventId })) afterCommit(wakeWorker);
}
