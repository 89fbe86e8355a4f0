import type { Migration } from '@app/database';

/**
 * A fourth once-per-task ledger row, `settled` (amount 0): quota saw the task's generation succeed,
 * so no failure event, forged or late, can refund it.
 */
export const settledTasks: Migration = {
  name: '003-settled-tasks',
  async up(knex) {
    await knex.raw('alter table quota_ledger drop constraint quota_ledger_kind');
    await knex.raw(`alter table quota_ledger add constraint quota_ledger_kind check (kind in ('grant', 'debit', 'refund', 'rejection', 'settled'))`);
    await knex.raw('drop index quota_ledger_one_per_task');
    await knex.raw(`create unique index quota_ledger_one_per_task on quota_ledger (task_id, kind) where kind in ('debit', 'refund', 'rejection', 'settled')`);
  },
  async down(knex) {
    await knex('quota_ledger').where({ kind: 'settled' }).delete();
    await knex.raw('drop index quota_ledger_one_per_task');
    await knex.raw(`create unique index quota_ledger_one_per_task on quota_ledger (task_id, kind) where kind in ('debit', 'refund', 'rejection')`);
    await knex.raw('alter table quota_ledger drop constraint quota_ledger_kind');
    await knex.raw(`alter table quota_ledger add constraint quota_ledger_kind check (kind in ('grant', 'debit', 'refund', 'rejection'))`);
  },
};
