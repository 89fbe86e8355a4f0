import type { Migration } from '@app/database';

/**
 * The balance stored on the account, so that a debit is one update rather than a sum over the user's
 * ledger; from now on every ledger row that moves it moves it in the same transaction. Filled in
 * from the ledger as it stands.
 */
export const storedBalance: Migration = {
  name: '004-stored-balance',
  // Filled once: an instance from before writes ledger rows without moving it, and the balance drifts.
  oneWay: 'stop every quota instance of the release before it, then start the new ones',
  async up(knex) {
    await knex.schema.alterTable('quota_accounts', (t) => {
      t.integer('balance').notNullable().defaultTo(0);
    });
    await knex.raw(`
      update quota_accounts as a set balance = coalesce((
        select sum(case kind when 'debit' then -amount when 'grant' then amount when 'refund' then amount else 0 end)
        from quota_ledger as l where l.user_id = a.user_id), 0)`);
  },
  async down(knex) {
    await knex.schema.alterTable('quota_accounts', (t) => {
      t.dropColumn('balance');
    });
  },
};
