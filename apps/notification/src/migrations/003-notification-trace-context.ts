import type { Migration } from '@app/database';

/** The trace context a notification was created under, so that each webhook attempt is a span of the task's trace. */
export const notificationTraceContext: Migration = {
  name: '003-notification-trace-context',
  async up(knex) {
    await knex.raw('alter table notifications add column traceparent text');
  },
  async down(knex) {
    await knex.raw('alter table notifications drop column traceparent');
  },
};
