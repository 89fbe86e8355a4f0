import type { Migration } from '@app/database';

const statuses = (list: string[]) => `check (status in (${list.map((s) => `'${s}'`).join(', ')}))`;
const before = ['awaiting', 'scheduled', 'running', 'succeeded', 'failed', 'refused'];

/** A job of a cancelled task is closed as `cancelled`: it never runs again, and a late answer is dropped. */
export const cancelledJobs: Migration = {
  name: '004-cancelled-jobs',
  async up(knex) {
    await knex.raw('alter table generation_jobs drop constraint generation_jobs_status');
    await knex.raw(`alter table generation_jobs add constraint generation_jobs_status ${statuses([...before, 'cancelled'])}`);
  },
  async down(knex) {
    await knex('generation_jobs').where({ status: 'cancelled' }).update({ status: 'failed' });
    await knex.raw('alter table generation_jobs drop constraint generation_jobs_status');
    await knex.raw(`alter table generation_jobs add constraint generation_jobs_status ${statuses(before)}`);
  },
};
