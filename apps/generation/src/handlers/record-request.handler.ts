import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { upsertJob } from '../jobs/upsert-job';

/** The task's request, kept to run it: the job becomes due once quota's debit is known too. */
export async function recordRequest(event: EventOf<'TaskAccepted'>, { trx, afterCommit }: HandlerContext, wakeWorker: () => void): Promise<void> {
  if (await upsertJob(trx, event, { report_type: event.reportType, input: event.input, request_event_id: event.eventId })) afterCommit(wakeWorker);
}
