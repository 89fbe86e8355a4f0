import type { Knex } from 'knex';
import type { ServiceName } from '@app/config';
import { createKnex, dropDatabase, ensureDatabase, Migration } from '@app/database';
import { generationMigrations } from '../../apps/generation/src/migrations';
import { notificationMigrations } from '../../apps/notification/src/migrations';
import { quotaMigrations } from '../../apps/quota/src/migrations';
import { tasksMigrations } from '../../apps/tasks/src/migrations';
import { appliedMigrations, contractingSteps } from '../../tools/deploy/migration-steps';
import { migrateWithRelease, prepareRelease, Release } from '../../tools/deploy/release';
import { TestEnv } from '../support/test-env';

const services: Array<[ServiceName, Migration[]]> = [
  ['tasks', tasksMigrations],
  ['quota', quotaMigrations],
  ['generation', generationMigrations],
  ['notification', notificationMigrations],
];

/** What a shape check finds contracting (quota's 004-stored-balance is one-way for what its writers do, which no shape shows). */
const declaredOneWay: Record<ServiceName, string[]> = {
  tasks: ['006-personal-data'],
  quota: [],
  generation: ['005-personal-data'],
  notification: ['002-sealed-secrets'],
};

/**
 * Expand, then contract: during a rolling deploy the previous release's instances run against the
 * head's schema, so a migration may add but not drop, rename or narrow what they read and write — a
 * step that does is refused unless it is declared one-way, with its upgrade procedure.
 */
describe('the head migrates the previous release database without taking away what that release uses', () => {
  const env = new TestEnv();
  let release: Release;
  beforeAll(() => {
    release = prepareRelease(); // ops/previous-release, checked out and built once per machine
  }, 600_000);
  const made: string[] = [];
  afterAll(async () => {
    for (const url of made) await dropDatabase(url);
  });

  const database = async (service: ServiceName, name: string): Promise<[string, Knex]> => {
    const url = `${env.databaseUrl(service)}_${name}`;
    await ensureDatabase(url);
    made.push(url);
    return [url, createKnex(url)];
  };

  it.each(services)('%s: every migration the release applied is still the head', async (service, migrations) => {
    // Given the database as the previous release's own migrate command leaves it
    const [url, knex] = await database(service, 'kept');
    try {
      migrateWithRelease(release, service, url);
      const applied = await appliedMigrations(knex);
      expect(applied.length).toBeGreaterThan(0);
      // Then the head lists the same migrations, by name and in order, first (a shipped migration is never removed or renamed)
      expect(migrations.slice(0, applied.length).map((m) => m.name)).toEqual(applied);
      // And what the head adds to it contracts nothing the release uses, or is declared one-way
      const steps = await contractingSteps(knex, migrations);
      expect(steps.filter((step) => !step.oneWay)).toEqual([]);
      expect(await appliedMigrations(knex)).toEqual(migrations.map((m) => m.name));
    } finally {
      await knex.destroy();
    }
  });

  it.each(services)('%s: each step from an empty database expands, or is declared one-way', async (service, migrations) => {
    const [, knex] = await database(service, 'steps');
    try {
      const steps = await contractingSteps(knex, migrations);
      expect(steps.filter((step) => !step.oneWay)).toEqual([]);
      // And the steps the check finds contracting are the ones the services declare one-way: its known cases
      expect(steps.map((step) => step.migration)).toEqual(declaredOneWay[service]);
    } finally {
      await knex.destroy();
    }
  });

  it('refuses a new migration that drops, retypes or narrows what the previous release uses', async () => {
    // Given quota's database at the previous release
    const [url, knex] = await database('quota', 'contracting');
    try {
      migrateWithRelease(release, 'quota', url);
      const contracting: Migration = {
        name: '999-contracting',
        async up(db) {
          await db.schema.alterTable('quota_ledger', (t) => t.dropColumn('task_id'));
          await db.raw('alter table quota_accounts alter column balance type bigint');
          await db.schema.alterTable('quota_ledger', (t) => t.text('approved_by').notNullable());
        },
        async down() {},
      };
      // When the head's migrations and one more that contracts are applied
      const steps = await contractingSteps(knex, [...quotaMigrations, contracting]);
      // Then that step is named with what it took away, and nothing else is
      expect(steps.filter((step) => !step.oneWay)).toEqual([
        {
          migration: '999-contracting',
          contractions: [
            'column quota_accounts.balance changed type from integer to bigint',
            'column quota_ledger.task_id was dropped or renamed',
            'column quota_ledger.approved_by was added refusing null, with no default',
          ],
          oneWay: undefined,
        },
      ]);
    } finally {
      await knex.destroy();
    }
  });
});
