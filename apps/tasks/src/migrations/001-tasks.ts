import type { Migration } from '@app/database';

/** The task projection, its per-task timeline, and the Idempotency-Key records of POST /tasks. */
export const tasksTables: Migration = {
  name: '001-tasks',
  async up(knex) {
    // report_type and input stay null while a task is known only from events that came before its
    // TaskRequested (events of one task arrive on several topics, in any order).
    await knex.schema.createTable('tasks', (t) => {
      t.uuid('task_id').primary();
      t.text('user_id').notNullable();
      t.text('report_type');
      t.jsonb('input');
      t.text('idempotency_key');
      t.text('state').notNullable();
      t.text('reason');
      t.integer('attempts').notNullable().defaultTo(0);
      t.text('report_ref');
      t.jsonb('facts').notNullable();
      t.uuid('outcome_event_id');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['user_id', 'created_at']);
    });
    await knex.schema.createTable('task_timeline', (t) => {
      t.bigIncrements('id');
      t.uuid('task_id').notNullable().references('task_id').inTable('tasks');
      t.uuid('event_id').notNullable().unique();
      t.text('event_type').notNullable();
      t.timestamp('occurred_at', { useTz: true }).notNullable();
      t.text('producer').notNullable();
      t.jsonb('payload').notNullable();
      t.index(['task_id', 'id']);
    });
    await knex.schema.createTable('idempotency_keys', (t) => {
      t.text('user_id').notNullable();
      t.text('route').notNullable();
      t.string('key', 255).notNullable();
      t.text('request_hash').notNullable();
      t.uuid('task_id').notNullable();
      t.integer('response_status');
      t.json('response_body'); // json, not jsonb: a replay answers with the very same body
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.primary(['user_id', 'route', 'key']);
      t.index(['expires_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('idempotency_keys');
    await knex.schema.dropTable('task_timeline');
    await knex.schema.dropTable('tasks');
  },
};
