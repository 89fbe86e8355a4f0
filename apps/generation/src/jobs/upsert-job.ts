import type { Knex } from 'knex';
import { traceparentOf } from '@app/tracing';

/**
 * Generation keeps its own copy of what a task asks for (from TaskAccepted) and of its go-ahead
 * (QuotaDebited). Request and debit together make the job due, whichever comes second; the job keeps the
 * trace context of that second event, under which its attempts will run.
 */
export async function upsertJob(
  trx: Knex.Transaction,
  event: { taskId: string; userId: string; correlationId: string },
  known: Record<string, unknown>,
): Promise<void> {
  await trx('generation_jobs')
    .insert({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'awaiting', ...known })
    .onConflict('task_id')
    .merge(Object.keys(known));
  await trx('generation_jobs')
    .where({ task_id: event.taskId, status: 'awaiting' })
    .whereNotNull('request_event_id')
    .whereNotNull('debit_event_id')
    .update({ status: 'scheduled', next_attempt_at: trx.fn.now(), updated_at: trx.fn.now(), traceparent: traceparentOf() ?? null });
}
