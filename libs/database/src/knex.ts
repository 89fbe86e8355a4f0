import knex, { Knex } from 'knex';

export const KNEX = Symbol('KNEX');

const silent = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };

/**
 * A pool on one database. `quiet` keeps knex from logging refused connections: for probes that expect
 * them. Waiting for a connection is bounded well under knex's 60 s: with the database refusing
 * logins, an acquire was seen to hang for the whole of that, holding its caller with it.
 */
export function createKnex(url: string, poolMax = 10, { quiet = false, acquireTimeoutMs = 10_000 } = {}): Knex {
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: acquireTimeoutMs,
    ...(quiet ? { log: silent } : {}),
  });
}

/** True when the server answers a query within the timeout; used by health checks and the stack. */
export async function databaseAnswers(db: Knex, timeoutMs = 2000): Promise<boolean> {
  try {
    await db.raw('select 1').timeout(timeoutMs, { cancel: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs several reads against one snapshot, so an answer built from more than one table never mixes
 * rows from before and after a concurrent commit (a task's state from one moment, its timeline from
 * the next).
 */
export function readConsistently<T>(db: Knex, read: (snapshot: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(read, { isolationLevel: 'repeatable read', readOnly: true });
}
