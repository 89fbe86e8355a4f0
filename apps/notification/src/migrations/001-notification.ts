import type { Migration } from '@app/database';

/** One notification per (task, outcome), enforced by the database; one webhook per user. */
export const notificationTables: Migration = {
  name: '001-notification',
  async up(knex) {
    await knex.schema.createTable('webhooks', (t) => {
      t.text('user_id').primary();
      t.text('url').notNullable();
      t.text('secret').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('notifications', (t) => {
      t.bigIncrements('id');
      t.uuid('task_id').notNullable();
      t.text('user_id').notNullable();
      t.text('outcome').notNullable();
      t.uuid('event_id').notNullable();
      t.text('correlation_id').notNullable();
      t.text('message').notNullable();
      t.jsonb('payload').notNullable();
      t.text('channel').notNullable();
      t.text('status').notNullable();
      t.integer('delivery_attempts').notNullable().defaultTo(0);
      t.timestamp('next_delivery_at', { useTz: true });
      t.text('last_error');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('delivered_at', { useTz: true });
      t.unique(['task_id', 'outcome']);
      t.index(['user_id', 'created_at']);
      t.index(['status', 'next_delivery_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('notifications');
    await knex.schema.dropTable('webhooks');
  },
};
