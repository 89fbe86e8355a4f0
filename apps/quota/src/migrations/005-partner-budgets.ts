import type { Migration } from '@app/database';

/**
 * A budget for each namespace of users (a partner's, `external`'s): what a new user of it starts with
 * and a cap on what all of them may draw that way, with what they have drawn. A setting left null is
 * the service's default (PARTNER_NEW_USER_QUOTA, PARTNER_DRAW_CAP), so that changing it reaches every
 * partner given none of its own. Added beside the ledger: a release before it still runs on the table.
 */
export const partnerBudgets: Migration = {
  name: '005-partner-budgets',
  async up(knex) {
    await knex.schema.createTable('partner_budgets', (t) => {
      t.string('partner', 64).primary();
      t.integer('new_user_quota');
      t.integer('draw_cap');
      t.integer('drawn').notNullable().defaultTo(0);
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable('partner_budgets');
  },
};
