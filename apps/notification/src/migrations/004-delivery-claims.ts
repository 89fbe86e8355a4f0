import type { Migration } from '@app/database';

/**
 * Each claim of a notification for delivery gets an id; only the claim that made an attempt records
 * its result. Nullable and unread by older instances: they run beside it during a rolling deploy.
 */
export const deliveryClaims: Migration = {
  name: '004-delivery-claims',
  async up(knex) {
    await knex.raw('alter table notifications add column claim_id uuid');
  },
  async down(knex) {
    await knex.raw('alter table notifications drop column claim_id');
  },
};
