import type { Knex } from 'knex';
import { Job, wrappedKeyColumn } from './job';

/** The advisory-lock key space of users' shares (a constant no other lock of generation uses). */
const shareLockSpace = 0x6773;

/**
 * How an instance gives out its free slots: each user up to their share (the default, or one an admin
 * set); the last `keptForNewcomers` only to a user who runs nothing yet, so that a quiet user's task
 * finds a slot at once however many busy users hold the others.
 */
export interface SlotPolicy {
  defaultShare: number;
  free: number;
  keptForNewcomers: number;
}

/**
 * Of `jobs`, in their order, those the instance's free slots and their users' shares have room for,
 * counting the attempts that every instance runs. A user's starts wait for one another on a lock held
 * to the commit, taken in one order (two starters never deadlock); the count is read by the next
 * statement, since a statement sees only what was committed before it began.
 */
export async function withinShares(trx: Knex.Transaction, jobs: Job[], policy: SlotPolicy): Promise<Job[]> {
  const users = [...new Set(jobs.map((job) => job.user_id))];
  await trx.raw('select pg_advisory_xact_lock(?, h) from (select distinct hashtext(u) as h from unnest(?::text[]) as u order by 1) as ordered', [
    shareLockSpace,
    users,
  ]);
  const { rows } = await trx.raw<{ rows: Array<{ user_id: string; share: number; running: number }> }>(
    `select u.user_id, coalesce(s.max_running, ?) as share,
            (select count(*) from generation_jobs j where j.user_id = u.user_id and j.status = 'running')::int as running
       from unnest(?::text[]) as u(user_id) left join user_shares s using (user_id)`,
    [policy.defaultShare, users],
  );
  const usage = new Map(rows.map((row) => [row.user_id, row]));
  let free = policy.free;
  return jobs.filter((job) => {
    const user = usage.get(job.user_id);
    if (!user || free <= 0 || user.running >= user.share) return false;
    if (user.running > 0 && free <= policy.keptForNewcomers) return false;
    user.running++;
    free--;
    return true;
  });
}

/**
 * Up to `limit` due jobs, fairly: every user with a due job is considered, whatever the depth of
 * others' backlogs; each user's jobs in the order they became due, and users by how many attempts
 * they would then run (fewest first: a quiet user's job comes before a busy user's next one). Jobs
 * past their user's share are left. Locked with SKIP LOCKED, so instances share the work; with the
 * number of due jobs, to tell whether any was left.
 */
export async function fairlyDueJobs(trx: Knex.Transaction, limit: number, defaultShare: number): Promise<{ jobs: Job[]; due: number }> {
  const { rows } = await trx.raw<{ rows: Array<Job & { due_count: number }> }>(
    `with running as (
       select user_id, count(*)::int as n from generation_jobs where status = 'running' group by user_id
     ), due as (
       select task_id, user_id, next_attempt_at, row_number() over (partition by user_id order by next_attempt_at, task_id) as nth
         from generation_jobs where status = 'scheduled' and next_attempt_at <= now()
     ), ranked as (
       select due.task_id, due.next_attempt_at, coalesce(r.n, 0) + due.nth as place
         from due left join running r using (user_id) left join user_shares s using (user_id)
        where coalesce(r.n, 0) + due.nth <= coalesce(s.max_running, :share)
        order by place, due.next_attempt_at
        limit :candidates
     )
     select generation_jobs.*, ${wrappedKeyColumn}, (select count(*) from due)::int as due_count
       from generation_jobs join ranked using (task_id)
      where generation_jobs.status = 'scheduled'
      order by ranked.place, ranked.next_attempt_at
      limit :limit
        for update of generation_jobs skip locked`,
    { share: defaultShare, candidates: limit * 4, limit },
  );
  const due =
    rows[0]?.due_count ?? (await trx('generation_jobs').where({ status: 'scheduled' }).where('next_attempt_at', '<=', trx.fn.now()).count({ n: '*' }))[0].n;
  return { jobs: rows.map(({ due_count: _, ...job }) => job), due: Number(due) };
}
