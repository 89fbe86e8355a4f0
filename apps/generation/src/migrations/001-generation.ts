import type { Migration } from '@app/database';

/** One job per task whose next attempt time lives here, so a crash during backoff loses nothing. */
export const generationTables: Migration = {
  name: '001-generation',
  async up(knex) {
    await knex.schema.createTable('generation_jobs', (t) => {
      t.uuid('task_id').primary();
      t.text('user_id').notNullable();
      t.text('correlation_id').notNullable();
      t.text('report_type').notNullable();
      t.jsonb('input').notNullable();
      t.text('status').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('next_attempt_at', { useTz: true });
      t.text('report_ref');
      t.text('last_error');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['status', 'next_attempt_at']);
    });
    await knex.schema.createTable('generation_attempts', (t) => {
      t.uuid('task_id').notNullable().references('task_id').inTable('generation_jobs');
      t.integer('attempt').notNullable();
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.timestamp('finished_at', { useTz: true });
      t.text('outcome');
      t.text('error_class');
      t.text('error_message');
      t.primary(['task_id', 'attempt']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('generation_attempts');
    await knex.schema.dropTable('generation_jobs');
  },
};
