import type { Migration } from '@app/database';

// projection/task-search.ts's errorCodeSql as it was (a migration keeps its own literals); the
// search's int spec checks that the planner still takes this index for it.
const errorCodeSql = `(case when state = 'CANCELLED' then 'CANCELLED'
  when state = 'FAILED' then coalesce(facts->>'rejectionCode', 'INSUFFICIENT_QUOTA')
  when state in ('COMPENSATING', 'COMPENSATED') then coalesce(facts->>'failureCode', 'HANDLER_FAILED') end)`;

/** The console's search (projection/task-search.ts says which index serves which filter): each newest first. */
const indexes = {
  tasks_by_state: '(state, created_at desc)',
  tasks_by_report_type: '(report_type, created_at desc)',
  tasks_by_created_at: '(created_at desc)',
  tasks_by_error_code: `(${errorCodeSql}, created_at desc)`,
};

export const taskSearchIndexes: Migration = {
  name: '008-task-search',
  async up(knex) {
    for (const [name, on] of Object.entries(indexes)) await knex.raw(`create index if not exists ${name} on tasks ${on}`);
  },
  async down(knex) {
    for (const name of Object.keys(indexes)) await knex.raw(`drop index if exists ${name}`);
  },
};
