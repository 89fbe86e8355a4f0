import type { Knex } from 'knex';
import { Migration, migrationConfig } from '@app/database';
import { contractions, schemaShape } from './schema-shape';

/** A pending migration that, applied, contracted what the release before it reads or writes. */
export interface ContractingStep {
  migration: string;
  contractions: string[];
  /** Its upgrade procedure, when it is declared one-way (Migration.oneWay). */
  oneWay?: string;
}

/**
 * Applies the pending migrations one at a time, comparing the schema before and after each: a step
 * that contracts it breaks the instances of the release before it that still run during a rolling
 * deploy, unless it is declared one-way (and deployed as its procedure says).
 */
export async function contractingSteps(knex: Knex, migrations: Migration[]): Promise<ContractingStep[]> {
  const config = migrationConfig(migrations);
  const found: ContractingStep[] = [];
  for (;;) {
    const before = await schemaShape(knex);
    const [, applied] = (await knex.migrate.up(config)) as [number, string[]];
    if (applied.length === 0) return found;
    const contracted = contractions(before, await schemaShape(knex));
    const name = applied[0];
    if (contracted.length > 0) found.push({ migration: name, contractions: contracted, oneWay: migrations.find((m) => m.name === name)?.oneWay });
  }
}

/** The names of the migrations a database has applied, in order (knex's own table, read directly: knex refuses to list a database with a name its source lacks). */
export async function appliedMigrations(knex: Knex): Promise<string[]> {
  if (!(await knex.schema.hasTable('knex_migrations'))) return [];
  const rows = await knex('knex_migrations').select<Array<{ name: string }>>('name').orderBy('id');
  return rows.map((row) => row.name);
}
