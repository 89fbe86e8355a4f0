import type { Migration } from '@app/database';

/**
 * One job per task. It becomes due once both its request (TaskRequested: what to generate) and its
 * debit (QuotaDebited: the go-ahead) are known, whatever order they arrive in. The next attempt's
 * time lives here, not in a sleeping consumer, so a crash during backoff loses nothing; a running
 * attempt holds a lease, so a crash mid-attempt is noticed and retried.
 */
export const generationTables: Migration = {
  name: '001-generation',
  async up(knex) {
    await knex.schema.createTable('generation_jobs', (t) => {
      t.uuid('task_id').primary();
      t.text('user_id').notNullable();
      t.text('correlation_id').notNullable();
      t.text('report_type');
      t.jsonb('input');
      t.uuid('request_event_id');
      t.uuid('debit_event_id');
      t.text('status').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('next_attempt_at', { useTz: true });
      t.timestamp('lease_until', { useTz: true });
      t.text('report_ref');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['status', 'next_attempt_at']);
    });
    await knex.raw(
      `alter table generation_jobs add constraint generation_jobs_status check (status in ('awaiting', 'scheduled', 'running', 'succeeded', 'failed'))`,
    );
    await knex.schema.createTable('generation_attempts', (t) => {
      t.uuid('task_id').notNullable().references('task_id').inTable('generation_jobs');
      t.integer('attempt').notNullable();
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.timestamp('finished_at', { useTz: true });
      t.text('outcome');
      t.text('error_code');
      t.text('error_message');
      t.primary(['task_id', 'attempt']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('generation_attempts');
    await knex.schema.dropTable('generation_jobs');
  },
};
