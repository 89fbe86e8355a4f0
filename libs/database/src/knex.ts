import knex, { Knex } from 'knex';
import { withDeadline } from '@app/timing';

export const KNEX = Symbol('KNEX');

const silent = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };

/**
 * What a pool's connections are for, and so how long they may wait: a service's work is short
 * statements, a migration or backfill may run for minutes, a probe must answer at once.
 */
export type DatabaseRole = 'service' | 'migration' | 'probe';

export interface DatabaseTimeouts {
  connectMs: number;
  /** Server side: a statement running longer is cancelled (57014, an outage to wait out). */
  statementMs: number;
  /** Server side: a session idle inside a transaction this long is ended, releasing its locks. */
  idleInTransactionMs: number;
}

const roleTimeouts: Record<DatabaseRole, DatabaseTimeouts> = {
  service: { connectMs: 5_000, statementMs: 30_000, idleInTransactionMs: 60_000 },
  migration: { connectMs: 10_000, statementMs: 15 * 60_000, idleInTransactionMs: 5 * 60_000 },
  probe: { connectMs: 2_000, statementMs: 5_000, idleInTransactionMs: 10_000 },
};

/**
 * The connection settings of a pool in `role`: connect, statement and idle-in-transaction timeouts,
 * TCP keepalive, and a client-side read timeout a little past the statement's. A server that falls
 * silent without a reset (a network that drops its packets) answers no cancel; without the read
 * timeout a query waited about fifteen minutes, for the kernel to give up on the connection.
 */
export function connectionFor(url: string, role: DatabaseRole, overrides: Partial<DatabaseTimeouts> = {}) {
  const timeouts = { ...roleTimeouts[role], ...overrides };
  return {
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    query_timeout: timeouts.statementMs + 5_000,
  };
}

export interface PoolOptions {
  /** Keeps knex from logging refused connections: for probes that expect them. */
  quiet?: boolean;
  acquireTimeoutMs?: number;
  role?: DatabaseRole;
  timeouts?: Partial<DatabaseTimeouts>;
}

/**
 * A pool on one database, with the timeouts of its role. Waiting for a connection is bounded well
 * under knex's 60 s: with the database refusing logins, an acquire was seen to hang for the whole of
 * that, holding its caller with it.
 */
export function createKnex(url: string, poolMax = 10, { quiet = false, acquireTimeoutMs = 10_000, role = 'service', timeouts }: PoolOptions = {}): Knex {
  return knex({
    client: 'pg',
    connection: connectionFor(url, role, timeouts),
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: acquireTimeoutMs,
    // A failed statement's error names its SQL with placeholders, never the values bound to them:
    // those may be a caller's text, and an error's text is logged and was once read as an outage.
    compileSqlOnError: false,
    ...(quiet ? { log: silent } : {}),
  });
}

/**
 * True when the server answers a query within the timeout; used by health checks and the stack. A
 * deadline, not knex's cancel-on-timeout: that cancel opens a connection of its own, which to a
 * silent server hangs the check it was meant to bound. The query itself ends by the read timeout.
 */
export async function databaseAnswers(db: Knex, timeoutMs = 2000): Promise<boolean> {
  try {
    await withDeadline(db.raw('select 1'), timeoutMs, 'the database answering');
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
