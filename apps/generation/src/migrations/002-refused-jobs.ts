import type { Migration } from '@app/database';

/** A job whose quota was refused is closed as `refused`, so no job waits forever for a debit. */
export const refusedJobs: Migration = {
  name: '002-refused-jobs',
  async up(knex) {
    await knex.raw('alter table generation_jobs drop constraint generation_jobs_status');
    await knex.raw(
      `alter table generation_jobs add constraint generation_jobs_status check (status in ('awaiting', 'scheduled', 'running', 'succeeded', 'failed', 'refused'))`,
    );
  },
  async down(knex) {
    await knex('generation_jobs').where({ status: 'refused' }).update({ status: 'awaiting' });
    await knex.raw('alter table generation_jobs drop constraint generation_jobs_status');
    await knex.raw(
      `alter table generation_jobs add constraint generation_jobs_status check (status in ('awaiting', 'scheduled', 'running', 'succeeded', 'failed'))`,
    );
  },
};
