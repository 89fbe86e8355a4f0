import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { StartDueJobs, upsertJobs } from '../../jobs/upsert-job';

/** The tasks' requests, kept to run them: each job becomes due once quota's debit is known too, and starts if it can. */
export async function recordRequests(events: Array<EventOf<'TaskAccepted'>>, { trx, traceparentOf }: BatchContext, startDue: StartDueJobs): Promise<void> {
  const facts = events.map((event) => ({
    event,
    known: { report_type: event.reportType, input: event.input, request_event_id: event.eventId },
    traceparent: traceparentOf(event),
  }));
  await startDue(trx, await upsertJobs(trx, facts));
}
