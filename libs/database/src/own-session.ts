import type { Knex } from 'knex';
import { Client, ClientConfig } from 'pg';

/**
 * A session of its own on `knex`'s database, outside the pool: for a session-level advisory lock,
 * which lasts as long as the session and goes with it, even when the process dies. Not connected yet.
 */
export function ownSession(knex: Knex): Client {
  const connection = (knex.client as { config: { connection: string | ClientConfig } }).config.connection;
  return new Client({ ...(typeof connection === 'string' ? { connectionString: connection } : connection), connectionTimeoutMillis: 10_000 });
}
