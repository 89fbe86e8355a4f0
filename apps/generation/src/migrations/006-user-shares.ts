import type { Migration } from '@app/database';

/**
 * Fair shares: a user's attempts running at once, counted across instances, are capped by their
 * share — the default (GENERATION_MAX_PER_USER) or one an operator set. `user_shares` holds what is
 * set; `user_share_changes` every change, never edited (who, when, from what to what). The two partial
 * indexes serve the fair claim: each user's due jobs in order, and each user's running count.
 */
export const userShares: Migration = {
  name: '006-user-shares',
  async up(knex) {
    await knex.schema.createTable('user_shares', (t) => {
      t.text('user_id').primary();
      t.integer('max_running').notNullable();
      t.text('set_by').notNullable();
      t.timestamp('set_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw('alter table user_shares add constraint user_shares_positive check (max_running between 1 and 1000)');
    await knex.schema.createTable('user_share_changes', (t) => {
      t.bigIncrements('id');
      t.text('user_id').notNullable().index();
      t.integer('max_running_before');
      t.integer('max_running');
      t.text('set_by').notNullable();
      t.timestamp('set_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw(`create index generation_jobs_due_by_user on generation_jobs (user_id, next_attempt_at, task_id) where status = 'scheduled'`);
    await knex.raw(`create index generation_jobs_running_by_user on generation_jobs (user_id) where status = 'running'`);
  },
  async down(knex) {
    await knex.raw('drop index generation_jobs_running_by_user');
    await knex.raw('drop index generation_jobs_due_by_user');
    await knex.schema.dropTable('user_share_changes');
    await knex.schema.dropTable('user_shares');
  },
};
