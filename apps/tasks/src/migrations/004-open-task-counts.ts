import type { Migration } from '@app/database';

/**
 * Each user's unfinished tasks counted in one row, so that POST /tasks takes a slot with one
 * conditional update instead of locking the user and counting their tasks: a task takes a slot when
 * it is accepted (POST /tasks, or an outside request adopted) and gives it back when it first reaches
 * a terminal state. Filled in from the tasks as they stand.
 */
export const openTaskCounts: Migration = {
  name: '004-open-task-counts',
  async up(knex) {
    await knex.schema.createTable('user_open_tasks', (t) => {
      t.text('user_id').primary();
      t.integer('open_tasks').notNullable();
    });
    await knex.raw(`
      insert into user_open_tasks (user_id, open_tasks)
      select user_id, count(*) from tasks
      where state not in ('SUCCESS', 'FAILED', 'COMPENSATED') and (facts->>'requested')::boolean
      group by user_id`);
  },
  async down(knex) {
    await knex.schema.dropTable('user_open_tasks');
  },
};
