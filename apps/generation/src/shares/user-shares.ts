import type { Knex } from 'knex';

/** A user's share of generation's slots (attempts running at once, across instances), and what they use of it. */
export interface UserShare {
  userId: string;
  maxRunning: number;
  /** Whether an operator set it; otherwise it is GENERATION_MAX_PER_USER. */
  set: boolean;
  setBy: string | null;
  setAt: string | null;
  running: number;
  due: number;
}

interface ShareRow {
  user_id: string;
  max_running: number | null;
  set_by: string | null;
  set_at: Date | null;
  running: number;
  due: number;
}

const shareOfRow = (row: ShareRow, defaultShare: number): UserShare => ({
  userId: row.user_id,
  maxRunning: row.max_running ?? defaultShare,
  set: row.max_running !== null,
  setBy: row.set_by,
  setAt: row.set_at ? new Date(row.set_at).toISOString() : null,
  running: row.running,
  due: row.due,
});

const usage = `(select count(*) from generation_jobs j where j.user_id = u.user_id and j.status = 'running')::int as running,
  (select count(*) from generation_jobs j where j.user_id = u.user_id and j.status = 'scheduled' and j.next_attempt_at <= now())::int as due`;

export async function shareOf(db: Knex, userId: string, defaultShare: number): Promise<UserShare> {
  const { rows } = await db.raw<{ rows: ShareRow[] }>(
    `select u.user_id, s.max_running, s.set_by, s.set_at, ${usage} from (select ?::text as user_id) u left join user_shares s using (user_id)`,
    [userId],
  );
  return shareOfRow(rows[0], defaultShare);
}

/**
 * Sets a user's share (`maxRunning`), or gives them the default again (null). Idempotent: the share
 * they already have changes nothing and writes no audit row; a change is written to
 * `user_share_changes` with who made it and what it was before, in the same transaction.
 */
export async function setShare(
  knex: Knex,
  userId: string,
  maxRunning: number | null,
  by: string,
  defaultShare: number,
): Promise<{ share: UserShare; changed: boolean }> {
  return knex.transaction(async (trx) => {
    // One change of a user's share at a time, so that `before` is what the change replaced.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`user-share:${userId}`]);
    const before = (await trx('user_shares').where({ user_id: userId }).first('max_running'))?.max_running ?? null;
    const changed = before !== maxRunning;
    if (changed) {
      if (maxRunning === null) await trx('user_shares').where({ user_id: userId }).delete();
      else await trx('user_shares').insert({ user_id: userId, max_running: maxRunning, set_by: by, set_at: trx.fn.now() }).onConflict('user_id').merge();
      await trx('user_share_changes').insert({ user_id: userId, max_running_before: before, max_running: maxRunning, set_by: by });
    }
    return { share: await shareOf(trx, userId, defaultShare), changed };
  });
}

/** A user's changes of share, newest first. */
export async function shareChanges(db: Knex, userId: string, limit = 50) {
  const rows = await db('user_share_changes').where({ user_id: userId }).orderBy('id', 'desc').limit(limit);
  return rows.map((r) => ({ maxRunningBefore: r.max_running_before, maxRunning: r.max_running, setBy: r.set_by, at: new Date(r.set_at).toISOString() }));
}

/** The users with the most attempts running, then due: who holds generation now (the console's overview). */
export async function busiestUsers(db: Knex, limit: number, defaultShare: number): Promise<UserShare[]> {
  const { rows } = await db.raw<{ rows: ShareRow[] }>(
    `select u.user_id, s.max_running, s.set_by, s.set_at, ${usage}
       from (select distinct user_id from generation_jobs where status = 'running' or (status = 'scheduled' and next_attempt_at <= now())) u
       left join user_shares s using (user_id)
      order by running desc, due desc, u.user_id
      limit ?`,
    [limit],
  );
  return rows.map((row) => shareOfRow(row, defaultShare));
}
