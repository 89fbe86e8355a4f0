import type { Migration } from '@app/database';

/** The trace context a job was scheduled under, so that each model attempt is a span of the task's trace. */
export const jobTraceContext: Migration = {
  name: '003-job-trace-context',
  async up(knex) {
    await knex.raw('alter table generation_jobs add column traceparent text');
  },
  async down(knex) {
    await knex.raw('alter table generation_jobs drop column traceparent');
  },
};
