import type { Migration } from '@app/database';

/**
 * Jobs keep their input as it came, sealed (`sealed:v1:…`, a text, no longer a JSON value); the keys
 * generation holds are in user_data_keys (made by @app/personal-data's migration), and the ids of
 * those erased are remembered, so that a job whose key is gone fails at once instead of waiting for it.
 */
export const personalData: Migration = {
  name: '005-personal-data',
  // Turns `input` from jsonb into sealed text: an instance from before writes it as JSON and reads it as an object.
  oneWay: 'stop every generation instance of the release before it, then start the new ones',
  async up(knex) {
    await knex.raw('alter table generation_jobs alter column input type text using input::text');
    await knex.schema.createTable('erased_data_keys', (t) => {
      t.uuid('key_id').primary();
      t.timestamp('erased_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable('erased_data_keys');
    await knex.raw('alter table generation_jobs alter column input type jsonb using input::jsonb');
  },
};
