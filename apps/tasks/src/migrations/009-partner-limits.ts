import type { Migration } from '@app/database';

/**
 * What all the users of one namespace (a partner's, `external`'s) may ask of tasks together: the
 * settings an admin gave it (null: the service's default), its unfinished tasks counted in one row,
 * and its rate bucket, as each user has them. A partner names its users; without these, every user
 * it invents would bring a cap and a rate of its own. The counts are filled in from the users' as
 * they stand; the settings outlive a partner's removal, so one added back keeps them.
 */
export const partnerLimits: Migration = {
  name: '009-partner-limits',
  async up(knex) {
    await knex.schema.createTable('partner_limits', (t) => {
      t.text('partner').primary();
      t.integer('max_open_tasks');
      t.double('rate_limit');
      t.integer('rate_burst');
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('partner_open_tasks', (t) => {
      t.text('partner').primary();
      t.integer('open_tasks').notNullable();
    });
    await knex.schema.createTable('partner_rate_buckets', (t) => {
      t.text('partner').primary();
      t.double('tokens').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    // The namespace as namespaceOf (@app/catalogue) reads it: a partner's name, then a colon.
    await knex.raw(`
      insert into partner_open_tasks (partner, open_tasks)
      select substring(user_id from '^([a-z][a-z0-9-]{1,30}):'), sum(open_tasks) from user_open_tasks
      where user_id ~ '^[a-z][a-z0-9-]{1,30}:'
      group by 1`);
  },
  async down(knex) {
    await knex.schema.dropTable('partner_rate_buckets');
    await knex.schema.dropTable('partner_open_tasks');
    await knex.schema.dropTable('partner_limits');
  },
};
