import type { Migration } from '@app/database';

/** One token bucket per user for POST /tasks, in the database so that every instance shares it. */
export const userLimits: Migration = {
  name: '003-user-limits',
  async up(knex) {
    await knex.schema.createTable('rate_buckets', (t) => {
      t.text('user_id').primary();
      t.double('tokens').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await knex.raw(`create index tasks_open_per_user on tasks (user_id) where state not in ('SUCCESS', 'FAILED', 'COMPENSATED')`);
  },
  async down(knex) {
    await knex.raw('drop index if exists tasks_open_per_user');
    await knex.schema.dropTable('rate_buckets');
  },
};
