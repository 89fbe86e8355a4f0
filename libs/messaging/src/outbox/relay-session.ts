import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import type { Knex } from 'knex';
import type { Client } from 'pg';
import { ownSession } from '@app/database';

const logger = new Logger('outbox-relay');

/**
 * The relay's own database session, apart from the pool. It takes the relay's advisory lock at
 * session level and keeps it while it lives, so the instance that publishes reads (and marks what it
 * published) with one statement, with no transaction around them (a transaction a run cost three more round
 * trips: begin, lock, commit). When the session ends — the process died, the server dropped it, or
 * a statement failed and `close` ended it — the lock goes with it and any instance may take over.
 * An instance that hangs rather than dies (paused, its event loop stuck) would keep it: the server
 * ends the session once it has been idle for `idleTimeoutMs`, which a live relay never is, since it
 * reads at least once a poll interval.
 */
export class RelaySession {
  private client?: Client;
  private holdsLock = false;

  constructor(
    private readonly knex: Knex,
    private readonly lockKey: number,
    private readonly idleTimeoutMs: number,
  ) {}

  /**
   * The session, once it holds the lock; undefined while another instance holds it. Its planner
   * never sorts: the backlog is read in id order from its index, never sorted whole (a table grown
   * since it was last analyzed made the planner sort every unpublished row for each batch: 10,000
   * rows, 21 ms a batch instead of 0.5).
   */
  async locked(): Promise<Client | undefined> {
    if (!this.client) {
      const client = ownSession(this.knex);
      // A session the server drops says so here, between statements; the next statement fails and the round ends it.
      client.on('error', letGo('the relay session was dropped; its next statement fails and the round ends it', logger));
      await client.connect().catch(async (error: unknown) => {
        await client.end().catch(letGo('a session that did not connect is ended whatever it answers', logger));
        throw error;
      });
      this.client = client;
    }
    if (!this.holdsLock) {
      const { rows } = await this.client.query<{ locked: boolean }>(
        "select pg_try_advisory_lock($1) as locked, set_config('enable_sort', 'off', false), set_config('idle_session_timeout', $2, false)",
        [this.lockKey, String(this.idleTimeoutMs)],
      );
      this.holdsLock = rows[0].locked;
    }
    return this.holdsLock ? this.client : undefined;
  }

  /** Ends the session, and with it the lock; the next `locked` opens a new one. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.holdsLock = false;
    await client?.end().catch(letGo('the relay session is ended whatever the server answers', logger));
  }
}
