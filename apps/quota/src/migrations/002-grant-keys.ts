import type { Migration } from '@app/database';

/** A grant carries its Idempotency-Key and the answer it got, so a repeat gets the same answer and no second row. */
export const grantKeys: Migration = {
  name: '002-grant-keys',
  async up(knex) {
    await knex.schema.alterTable('quota_ledger', (t) => {
      t.string('grant_key', 255);
      t.jsonb('grant_answer');
    });
    await knex.raw(`create unique index quota_ledger_one_per_grant_key on quota_ledger (user_id, grant_key) where grant_key is not null`);
  },
  async down(knex) {
    await knex.raw('drop index if exists quota_ledger_one_per_grant_key');
    await knex.schema.alterTable('quota_ledger', (t) => {
      t.dropColumn('grant_answer');
      t.dropColumn('grant_key');
    });
  },
};
