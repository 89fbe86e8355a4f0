import type { Migration } from '@app/database';

/**
 * Inputs are kept sealed (`sealed:v1:…`, a text, no longer a JSON value), under keys this service
 * issues (user_data_keys, made by @app/personal-data's migration); erasures and the services' answers
 * are kept to tell an erasure's status.
 */
export const personalData: Migration = {
  name: '006-personal-data',
  // Turns `input` from jsonb into sealed text: an instance from before writes it as JSON and reads it as an object.
  oneWay: 'stop every tasks instance of the release before it, then start the new ones',
  async up(knex) {
    await knex.raw('alter table tasks alter column input type text using input::text');
    await knex.schema.createTable('user_erasures', (t) => {
      t.uuid('erasure_id').primary();
      t.text('user_id').notNullable().index();
      t.text('requested_by').notNullable();
      t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('user_erasure_answers', (t) => {
      t.uuid('erasure_id').notNullable();
      t.text('service').notNullable();
      t.integer('erased').notNullable();
      t.timestamp('answered_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['erasure_id', 'service']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('user_erasure_answers');
    await knex.schema.dropTable('user_erasures');
    await knex.raw('alter table tasks alter column input type jsonb using input::jsonb');
  },
};
