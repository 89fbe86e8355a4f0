import type { Migration } from '@app/database';

/** When the deadline watcher re-published a task's request, and when it gave the task up. */
export const taskDeadline: Migration = {
  name: '002-task-deadline',
  async up(knex) {
    await knex.schema.alterTable('tasks', (t) => {
      t.timestamp('republished_at', { useTz: true });
      t.timestamp('timed_out_at', { useTz: true });
    });
    await knex.raw(`create index tasks_open on tasks (created_at) where state not in ('SUCCESS', 'FAILED', 'COMPENSATED')`);
  },
  async down(knex) {
    await knex.raw('drop index if exists tasks_open');
    await knex.schema.alterTable('tasks', (t) => {
      t.dropColumn('timed_out_at');
      t.dropColumn('republished_at');
    });
  },
};
