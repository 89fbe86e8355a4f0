import type { Knex } from 'knex';
import { ownSession } from './own-session';

/** A migration is code, listed explicitly, so it bundles with the service and runs the same in tests. */
export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /**
   * Set on a migration that contracts what the release before it reads or writes (drops a column,
   * or fills a new one in a way that its writers then undo): it is safe only once no instance of that
   * release runs. Says how to upgrade across it (docs/operating.md, "Deploying").
   */
  oneWay?: string;
}

class ListedMigrations implements Knex.MigrationSource<Migration> {
  constructor(private readonly migrations: Migration[]) {}
  async getMigrations(): Promise<Migration[]> {
    return this.migrations;
  }
  getMigrationName(migration: Migration): string {
    return migration.name;
  }
  async getMigration(migration: Migration): Promise<Knex.Migration> {
    return { up: (knex) => migration.up(knex), down: (knex) => migration.down(knex) };
  }
}

export function migrationConfig(migrations: Migration[]): Knex.MigratorConfig {
  return { migrationSource: new ListedMigrations(migrations), tableName: 'knex_migrations' };
}

/** The advisory lock (scoped to the database) that instances of one service migrate under, one at a time. */
const migrationLockKey = 7140003;

/**
 * Migrates to the latest version. Instances of a service that start together (two at once on a new
 * database, say) take turns under a PostgreSQL advisory lock held by a session of its own, rather than
 * meeting knex's lock row and failing with MigrationLocked; the session's end releases the lock, even
 * when the process dies. Holding it, the migrator is the only one, so a lock row left by a migration
 * killed half-way is freed first.
 */
export async function migrateToLatest(knex: Knex, migrations: Migration[]): Promise<void> {
  const session = ownSession(knex);
  await session.connect();
  try {
    await session.query('select pg_advisory_lock($1)', [migrationLockKey]);
    const config = migrationConfig(migrations);
    await knex.migrate.forceFreeMigrationsLock(config);
    await knex.migrate.latest(config);
  } finally {
    await session.end();
  }
}

export async function rollbackAll(knex: Knex, migrations: Migration[]): Promise<void> {
  await knex.migrate.rollback(migrationConfig(migrations), true);
}

/** Which migrations ran and which wait, by name, in order. */
export async function migrationStatus(knex: Knex, migrations: Migration[]): Promise<{ done: string[]; pending: string[] }> {
  const [done, pending] = (await knex.migrate.list(migrationConfig(migrations))) as [Array<{ name: string }>, Migration[]];
  return { done: done.map((m) => m.name), pending: pending.map((m) => m.name) };
}

/** Undoes the last batch (what the last `latest` applied); the names undone. */
export async function rollbackLastBatch(knex: Knex, migrations: Migration[]): Promise<string[]> {
  const [, undone] = (await knex.migrate.rollback(migrationConfig(migrations))) as [number, string[]];
  return undone;
}
