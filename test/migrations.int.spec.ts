import type { Knex } from 'knex';
import { ServiceName } from '@app/config';
import { createKnex, dropDatabase, ensureDatabase, Migration, migrateToLatest, rollbackAll } from '@app/database';
import { generationMigrations } from '../apps/generation/src/migrations';
import { notificationMigrations } from '../apps/notification/src/migrations';
import { quotaMigrations } from '../apps/quota/src/migrations';
import { tasksMigrations } from '../apps/tasks/src/migrations';
import { TestEnv } from './support/test-env';

const services: Array<[ServiceName, Migration[], string[]]> = [
  [
    'tasks',
    tasksMigrations,
    [
      'inbox',
      'outbox',
      'tasks',
      'task_timeline',
      'idempotency_keys',
      'rate_buckets',
      'user_open_tasks',
      'user_data_keys',
      'user_erasures',
      'user_erasure_answers',
      'partners',
      'partner_limits',
      'partner_open_tasks',
      'partner_rate_buckets',
      'operator_runs',
      'operator_run_audit',
    ],
  ],
  ['quota', quotaMigrations, ['inbox', 'outbox', 'partner_budgets', 'quota_accounts', 'quota_ledger']],
  [
    'generation',
    generationMigrations,
    ['inbox', 'outbox', 'generation_jobs', 'generation_attempts', 'user_data_keys', 'erased_data_keys', 'user_shares', 'user_share_changes'],
  ],
  ['notification', notificationMigrations, ['inbox', 'outbox', 'notifications', 'webhooks']],
];

async function tablesOf(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw<{ rows: Array<{ tablename: string }> }>(
    `select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_%' order by tablename`,
  );
  return rows.map((r) => r.tablename);
}

describe('each service migrates its own database', () => {
  const env = new TestEnv();
  afterAll(() => env.dropDatabases(services.map(([name]) => name)));

  it.each(services)('%s runs its migrations up, all the way down, and up again', async (service, migrations, tables) => {
    // Given an empty database of its own
    await ensureDatabase(env.databaseUrl(service));
    const knex = createKnex(env.databaseUrl(service));
    try {
      // When migrated up
      await migrateToLatest(knex, migrations);
      // Then its tables exist
      expect(await tablesOf(knex)).toEqual([...tables].sort());

      // When rolled all the way down
      await rollbackAll(knex, migrations);
      // Then none is left
      expect(await tablesOf(knex)).toEqual([]);

      // And it can be migrated up again
      await migrateToLatest(knex, migrations);
      expect(await tablesOf(knex)).toEqual([...tables].sort());
    } finally {
      await knex.destroy();
    }
  });

  it('lets two instances that start together on a new database both migrate, and frees a lock a killed migration left', async () => {
    // Given a new database, and two instances of a service starting at once
    const url = Object.assign(new URL(env.databaseUrl('tasks')), { pathname: `${new URL(env.databaseUrl('tasks')).pathname}_together` }).toString();
    await ensureDatabase(url);
    const [first, second] = [createKnex(url), createKnex(url)];
    try {
      // When both migrate together, then neither fails (knex alone had one fail with MigrationLocked)
      await Promise.all([migrateToLatest(first, tasksMigrations), migrateToLatest(second, tasksMigrations)]);
      expect(await tablesOf(first)).toEqual([...services[0][2]].sort());

      // Given knex's lock row left taken, as by a migration killed half-way
      await first('knex_migrations_lock').update({ is_locked: 1 });
      // When an instance starts, then it migrates all the same
      await expect(migrateToLatest(second, tasksMigrations)).resolves.toBeUndefined();
      expect((await first('knex_migrations_lock').first()).is_locked).toBe(0);
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
      await dropDatabase(url);
    }
  });
});
