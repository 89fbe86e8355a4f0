import type { Knex } from 'knex';

/** A migration is code, listed explicitly, so it bundles with the service and runs the same in tests. */
export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
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

export async function migrateToLatest(knex: Knex, migrations: Migration[]): Promise<void> {
  await knex.migrate.latest(migrationConfig(migrations));
}

export async function rollbackAll(knex: Knex, migrations: Migration[]): Promise<void> {
  await knex.migrate.rollback(migrationConfig(migrations), true);
}
