import type { Knex } from 'knex';
import { Job, wrappedKeyColumn } from './job-store';

/**
 * The input's key, for a job whose input is `input`, is here (or erased, which the attempt will say):
 * an input sealed under a key that has not arrived yet (it travels on its own topic) makes the job
 * wait for it; keepDataKeyOf makes it due when it comes.
 */
const keyReady = (input: string) => `(${input} is null or ${input} not like 'sealed:v1:%'
  or exists (select 1 from user_data_keys k where k.key_id::text = split_part(${input}, ':', 3))
  or exists (select 1 from erased_data_keys e where e.key_id::text = split_part(${input}, ':', 3)))`;

/** The job, after the merge, knows its request, its debit and its key, and waits for none: it is due now. */
const becomesDue = `generation_jobs.status = 'awaiting'
  and coalesce(excluded.request_event_id, generation_jobs.request_event_id) is not null
  and coalesce(excluded.debit_event_id, generation_jobs.debit_event_id) is not null
  and ${keyReady('coalesce(excluded.input, generation_jobs.input)')}`;

/** Starts, in the transaction, the attempts of jobs that just became due (GenerationWorker.startInTransaction). */
export type StartDueJobs = (trx: Knex.Transaction, due: Job[]) => Promise<void>;

export interface JobFacts {
  event: { taskId: string; userId: string; correlationId: string };
  /** What the event tells of the job: its request, or its debit. */
  known: Record<string, unknown>;
  /** The trace context of the event, under which the job's attempts run if it makes the job due. */
  traceparent?: string;
}

/**
 * Generation keeps its own copy of what a task asks for (from TaskAccepted) and of its go-ahead
 * (QuotaDebited). Request and debit together make the job due, whichever comes second; the job keeps the
 * trace context of that second event, under which its attempts will run. One statement for all the
 * jobs (a task's last event among them counts, as if each had come in turn); gives the jobs that
 * became due with it, locked by it until the transaction ends. All of `facts` tell the same columns.
 */
export async function upsertJobs(trx: Knex.Transaction, facts: JobFacts[]): Promise<Job[]> {
  const lastOfEachTask = [...new Map(facts.map((fact) => [fact.event.taskId.toLowerCase(), fact])).values()];
  if (lastOfEachTask.length === 0) return [];
  const columns = Object.keys(lastOfEachTask[0].known);
  const jobs = await trx('generation_jobs')
    .insert(
      lastOfEachTask.map(({ event, known, traceparent }) => ({
        task_id: event.taskId,
        user_id: event.userId,
        correlation_id: event.correlationId,
        status: 'awaiting',
        traceparent: traceparent ?? null,
        ...known,
      })),
    )
    .onConflict('task_id')
    .merge({
      ...Object.fromEntries(columns.map((column) => [column, trx.raw('??', [`excluded.${column}`])])),
      status: trx.raw(`case when ${becomesDue} then 'scheduled' else generation_jobs.status end`),
      next_attempt_at: trx.raw(`case when ${becomesDue} then now() else generation_jobs.next_attempt_at end`),
      updated_at: trx.raw(`case when ${becomesDue} then now() else generation_jobs.updated_at end`),
      traceparent: trx.raw(`case when ${becomesDue} then excluded.traceparent else generation_jobs.traceparent end`),
    })
    .returning<Array<Job & { status: string }>>([...jobColumns(trx), 'status']);
  return jobs.filter((job) => job.status === 'scheduled');
}

/** What a job due is handed to its attempt with: its row, and its input's key as kept. */
const jobColumns = (db: Knex | Knex.Transaction) => [
  'task_id',
  'user_id',
  'correlation_id',
  'report_type',
  'input',
  'debit_event_id',
  'attempts',
  'traceparent',
  db.raw(wrappedKeyColumn),
];

/**
 * The user's (or, without one, anyone's) jobs that had their request and debit and waited only for
 * their key (now kept, or erased: their attempt will fail for good, and be refunded): due now, given
 * back locked like upsertJobs's.
 */
export async function jobsNoLongerWaitingForKeys(db: Knex | Knex.Transaction, userId?: string): Promise<Job[]> {
  return db('generation_jobs')
    .where(userId === undefined ? { status: 'awaiting' } : { user_id: userId, status: 'awaiting' })
    .whereNotNull('request_event_id')
    .whereNotNull('debit_event_id')
    .whereRaw(keyReady('input'))
    .update({ status: 'scheduled', next_attempt_at: db.fn.now(), updated_at: db.fn.now() })
    .returning<Job[]>(jobColumns(db));
}
