import type { Migration } from '@app/database';

const openIndexes = (ended: string) => [
  `create index tasks_open on tasks (created_at) where state not in (${ended})`,
  `create index tasks_open_per_user on tasks (user_id) where state not in (${ended})`,
];
const drop = ['drop index if exists tasks_open', 'drop index if exists tasks_open_per_user'];

/** CANCELLED ends a task: the indexes of open tasks (the deadline's, the per-user limit's) leave it out. */
export const cancelledTasks: Migration = {
  name: '005-cancelled-tasks',
  async up(knex) {
    for (const statement of [...drop, ...openIndexes(`'SUCCESS', 'FAILED', 'COMPENSATED', 'CANCELLED'`)]) await knex.raw(statement);
  },
  async down(knex) {
    for (const statement of [...drop, ...openIndexes(`'SUCCESS', 'FAILED', 'COMPENSATED'`)]) await knex.raw(statement);
  },
};
