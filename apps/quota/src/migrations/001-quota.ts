import type { Migration } from '@app/database';

/**
 * Accounts and an append-only ledger; the balance is always derived from the ledger. One debit,
 * one refund and one rejection (amount 0, the decision remembered) per task, enforced by the
 * database, so a redelivered event cannot double any of them.
 */
export const quotaTables: Migration = {
  name: '001-quota',
  async up(knex) {
    await knex.schema.createTable('quota_accounts', (t) => {
      t.text('user_id').primary();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('quota_ledger', (t) => {
      t.bigIncrements('id');
      t.text('user_id').notNullable().references('user_id').inTable('quota_accounts');
      t.text('kind').notNullable();
      t.uuid('task_id');
      t.integer('amount').notNullable();
      t.uuid('event_id');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['user_id']);
    });
    await knex.raw(`alter table quota_ledger add constraint quota_ledger_kind check (kind in ('grant', 'debit', 'refund', 'rejection'))`);
    await knex.raw(`create unique index quota_ledger_one_per_task on quota_ledger (task_id, kind) where kind in ('debit', 'refund', 'rejection')`);
  },
  async down(knex) {
    await knex.schema.dropTable('quota_ledger');
    await knex.schema.dropTable('quota_accounts');
  },
};
