import { generationSlotWaitSeconds, retries } from '@app/metrics';
import { afterCommit, inOneStatement } from '@app/database';
import type { Knex } from 'knex';
import { DomainEvent, newEvent } from '@app/events';
import { capText } from '@app/text';
import { outbox } from '@app/messaging';
import { childTraceparent, openSpan, traceparentFor, traceparentOf } from '@app/tracing';
import type { ModelOutcome } from '../model/model-outcome.rules';
import { AttemptDecision } from './attempt-outcome.rules';
import { fairlyDueJobs, SlotPolicy, withinShares } from './fair-shares';
import type { Job } from './job';

export type { Job } from './job';
export { wrappedKeyColumn } from './job';

const origin = (job: Job) => ({ taskId: job.task_id, userId: job.user_id, correlationId: job.correlation_id, causationId: job.debit_event_id });

/**
 * Claims due jobs for the instance's free slots, fairly (see fairlyDueJobs and SlotPolicy), and starts their next attempts under a
 * lease, with GenerationStarted in the same transaction; `waiting` says some due job was left (its
 * user at their share, or no slot for it), so a finishing attempt should look again.
 */
export async function claimDueJobs(knex: Knex, leaseMs: number, policy: SlotPolicy): Promise<{ jobs: Job[]; more: boolean; waiting: boolean }> {
  return knex.transaction(async (trx) => {
    const { jobs, due } = await fairlyDueJobs(trx, policy.free, policy.defaultShare);
    const started = await startAttempts(trx, jobs, leaseMs, policy);
    return { jobs: started, more: started.length === policy.free && due > started.length, waiting: due > started.length };
  });
}

/**
 * The next attempts of those of `jobs` their users' shares have room for (see withinShares), started
 * by one statement: running under a lease, an attempt row each, and their GenerationStarted, each in
 * its task's trace under the context the job was scheduled in (the claim itself is in none). Returns
 * the jobs started; the others stay as they were.
 */
export async function startAttempts(trx: Knex.Transaction, candidates: Job[], leaseMs: number, policy: SlotPolicy): Promise<Job[]> {
  if (candidates.length === 0) return [];
  const jobs = await withinShares(trx, candidates, policy);
  if (jobs.length === 0) return [];
  // A job started as it became due (in its debit's transaction) waited for nothing; a claimed one since it was due.
  for (const job of jobs) generationSlotWaitSeconds.observe(job.next_attempt_at ? Math.max(0, Date.now() - new Date(job.next_attempt_at).getTime()) / 1000 : 0);
  for (const job of jobs) job.attempts += 1;
  const spans = jobs.map((job) =>
    openSpan('generation attempt claimed', {
      parent: job.traceparent ?? traceparentFor(job.correlation_id),
      facts: { taskId: job.task_id, attempt: job.attempts },
    }),
  );
  try {
    const started = await outbox.writeOf(
      trx,
      jobs.map((job, i) => ({
        event: newEvent('GenerationStarted', { attempt: job.attempts }, origin(job), 'generation'),
        traceparent: traceparentOf(spans[i]) ?? childTraceparent(job.traceparent ?? undefined, job.correlation_id),
      })),
    );
    await inOneStatement(trx, {
      running: trx('generation_jobs')
        .whereIn(
          'task_id',
          jobs.map((job) => job.task_id),
        )
        .update({ status: 'running', attempts: trx.raw('attempts + 1'), lease_until: new Date(Date.now() + leaseMs), updated_at: trx.fn.now() }),
      attempts: trx('generation_attempts').insert(jobs.map((job) => ({ task_id: job.task_id, attempt: job.attempts, started_at: trx.fn.now() }))),
      started: started?.insert,
    });
  } finally {
    for (const span of spans) span.end();
  }
  return jobs;
}

const interrupted = (db: Knex) => db('generation_jobs').where({ status: 'running' }).where('lease_until', '<', db.fn.now());

/** Running jobs whose lease ran out: their process died mid-attempt. */
export async function claimInterruptedJobs(trx: Knex.Transaction, limit: number): Promise<Job[]> {
  return interrupted(trx).limit(limit).forUpdate().skipLocked();
}

/** Of `taskIds`, those whose jobs were cancelled. */
export async function cancelledAmong(knex: Knex, taskIds: string[]): Promise<string[]> {
  const rows: Array<{ task_id: string }> = await knex('generation_jobs').whereIn('task_id', taskIds).where({ status: 'cancelled' }).select('task_id');
  return rows.map((row) => row.task_id);
}

export async function jobStatusOf(knex: Knex, taskId: string): Promise<string | undefined> {
  return (await knex('generation_jobs').where({ task_id: taskId }).first('status'))?.status;
}

/**
 * The attempt's lease made longer while the attempt still holds its job; false when it no longer
 * does (cancelled, or its lease already ran out and another attempt took it).
 */
export async function extendLease(knex: Knex, job: Job, attempt: number, leaseMs: number): Promise<boolean> {
  const updated = await knex('generation_jobs')
    .where({ task_id: job.task_id, status: 'running', attempts: attempt })
    .update({ lease_until: new Date(Date.now() + leaseMs), updated_at: knex.fn.now() });
  return updated > 0;
}

/** Whether any job's lease ran out: one statement, where claiming them takes a transaction. */
export async function anyInterruptedJob(knex: Knex): Promise<boolean> {
  return (await interrupted(knex).first('task_id')) !== undefined;
}

/**
 * How an attempt ended, in one statement: the job moves on (only while that attempt still holds it:
 * the statement that moves it is the one that locks it), the attempt row is closed, and the event
 * that says so goes to the outbox, all three or none. What follows was decided before, in
 * attempt-outcome.rules; `db` is the pool (the statement is its own transaction) or a transaction.
 */
const recordOutcome = `
with moved as (
  update generation_jobs
     set status = :status, report_ref = coalesce(:reportRef, report_ref), next_attempt_at = coalesce(:nextAttemptAt, next_attempt_at),
         lease_until = null, updated_at = now()
   where task_id = :taskId and status = 'running' and attempts = :attempt
  returning task_id
), finished as (
  update generation_attempts
     set finished_at = now(), outcome = :outcome, error_code = :errorCode, error_message = :errorMessage
   where task_id in (select task_id from moved) and attempt = :attempt
), published as (
  insert into outbox (event_id, event_type, message_key, payload, headers)
  select cast(:eventId as uuid), :eventType, :messageKey, cast(:payload as jsonb), cast(:headers as jsonb) from moved
)
select cast(count(*) as int) as moved from moved`;

/**
 * Records how attempt `attempt` ended and what follows, with its event. Returns false when the job
 * moved on meanwhile (its lease ran out and another attempt was started): then nothing is written.
 */
export async function recordAttempt(
  db: Knex,
  job: Job,
  attempt: number,
  outcome: ModelOutcome,
  decision: AttemptDecision,
  reportRef?: string,
): Promise<boolean> {
  const next = whatFollows(job, attempt, outcome, decision, reportRef);
  const row = outbox.rowOf(next.event, traceparentOf() ?? childTraceparent(undefined, next.event.correlationId));
  const result = await db.raw<{ rows: Array<{ moved: number }> }>(recordOutcome, {
    status: next.changes.status,
    reportRef: next.changes.report_ref ?? null,
    nextAttemptAt: next.changes.next_attempt_at ?? null,
    taskId: job.task_id,
    attempt,
    outcome: decision.kind,
    errorCode: outcome.ok ? null : outcome.code,
    errorMessage: outcome.ok ? null : outcome.message,
    eventId: row.event_id,
    eventType: row.event_type,
    messageKey: row.message_key,
    payload: row.payload,
    headers: row.headers,
  });
  if (result.rows[0].moved === 0) return false;
  const committed = () => {
    if (decision.kind === 'retry') retries.inc({ kind: 'generation' });
    outbox.wakeRelay();
  };
  if (db.isTransaction) afterCommit(db as Knex.Transaction, committed);
  else committed();
  return true;
}

interface JobChanges {
  status: 'succeeded' | 'scheduled' | 'failed';
  report_ref?: string;
  next_attempt_at?: Date;
}

/** The job's new state after the attempt, and the event that says so. */
function whatFollows(
  job: Job,
  attempt: number,
  outcome: ModelOutcome,
  decision: AttemptDecision,
  reportRef?: string,
): { changes: JobChanges; event: DomainEvent } {
  if (decision.kind === 'succeeded') {
    return {
      changes: { status: 'succeeded', report_ref: reportRef },
      event: newEvent(
        'GenerationSucceeded',
        { attempt, reportRef: reportRef ?? '', reportBytes: outcome.ok ? Buffer.byteLength(outcome.content) : null },
        origin(job),
        'generation',
      ),
    };
  }
  if (outcome.ok) throw new Error(`attempt ${attempt} of ${job.task_id} succeeded but was decided ${decision.kind}`);
  if (decision.kind === 'retry') {
    const nextAttemptAt = Date.now() + decision.delayMs;
    return {
      changes: { status: 'scheduled', next_attempt_at: new Date(nextAttemptAt) },
      event: newEvent('GenerationRetryScheduled', { attempt, nextAttemptAt, errorCode: outcome.code, reason: outcome.message }, origin(job), 'generation'),
    };
  }
  const reason = capText(decision.errorClass === 'RETRIES_EXHAUSTED' ? `gave up after ${attempt} attempts: ${outcome.message}` : outcome.message);
  return {
    changes: { status: 'failed' },
    event: newEvent('GenerationFailed', { attempts: attempt, errorClass: decision.errorClass, errorCode: outcome.code, reason }, origin(job), 'generation'),
  };
}
