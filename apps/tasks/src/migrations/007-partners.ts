import type { Migration } from '@app/database';

/**
 * The partners tasks has found on the broker (their request topics), kept so that every instance,
 * a freshly started one too, copies a partner's users' outcomes to it from its first write.
 */
export const partnersTable: Migration = {
  name: '007-partners',
  async up(knex) {
    await knex.schema.createTable('partners', (t) => {
      t.text('name').primary();
      t.timestamp('found_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable('partners');
  },
};
