import type { Migration } from '@app/database';

/**
 * The outbox (events waiting to be published, in commit order) and the inbox (which events each
 * consumer has processed). Every service lists this migration before its own.
 */
export const messagingTables: Migration = {
  name: '000-messaging',
  async up(knex) {
    await knex.schema.createTable('outbox', (t) => {
      t.bigIncrements('id');
      t.uuid('event_id').notNullable().unique();
      t.text('event_type').notNullable();
      t.text('message_key').notNullable();
      t.jsonb('payload').notNullable();
      t.jsonb('headers').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('published_at', { useTz: true });
    });
    await knex.raw('create index outbox_unpublished on outbox (id) where published_at is null');
    await knex.raw('create index outbox_published_at on outbox (published_at) where published_at is not null');
    await knex.schema.createTable('inbox', (t) => {
      t.text('consumer').notNullable();
      t.uuid('event_id').notNullable();
      t.text('event_type').notNullable();
      t.text('topic').notNullable();
      t.integer('partition').notNullable();
      t.bigInteger('offset').notNullable();
      t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['consumer', 'event_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('inbox');
    await knex.schema.dropTable('outbox');
  },
};
