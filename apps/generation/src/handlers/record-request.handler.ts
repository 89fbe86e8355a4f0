import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { upsertJobs } from '../jobs/upsert-job';

/** The tasks' requests, kept to run them: each job becomes due once quota's debit is known too. */
export async function recordRequests(
  events: Array<EventOf<'TaskAccepted'>>,
  { trx, afterCommit, traceparentOf }: BatchContext,
  wakeWorker: () => void,
): Promise<void> {
  const facts = events.map((event) => ({
    event,
    known: { report_type: event.reportType, input: event.input, request_event_id: event.eventId },
    traceparent: traceparentOf(event),
  }));
  if (await upsertJobs(trx, facts)) afterCommit(wakeWorker);
}
