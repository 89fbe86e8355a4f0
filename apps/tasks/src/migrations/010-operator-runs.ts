import type { Migration } from '@app/database';

/**
 * Operator runs: work an operator asks for over many tasks (a bulk cancel today; re-runs and pauses
 * are the same kind of thing), planned first, then run by whichever tasks instance holds its lease,
 * so that a restart resumes it where it was and any console shows it. Progress is written with each
 * item's own change, in its transaction: an item is done once, whatever stops in between. The audit
 * lines (planned, started, resumed, finished) are rows beside it, written with the change they tell.
 */
export const operatorRuns: Migration = {
  name: '010-operator-runs',
  async up(knex) {
    await knex.schema.createTable('operator_runs', (t) => {
      t.uuid('run_id').primary();
      t.text('kind').notNullable();
      t.text('requested_by').notNullable();
      t.text('filter').notNullable();
      t.specificType('items', 'text[]').notNullable();
      t.boolean('truncated').notNullable();
      t.text('state').notNullable().defaultTo('planned');
      t.double('rate');
      t.text('started_by');
      t.integer('done').notNullable().defaultTo(0);
      t.jsonb('outcomes').notNullable().defaultTo('{}');
      t.jsonb('failures').notNullable().defaultTo('[]');
      t.text('lease_owner');
      t.timestamp('lease_until', { useTz: true });
      t.timestamp('planned_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('started_at', { useTz: true });
      t.timestamp('finished_at', { useTz: true });
    });
    await knex.raw(`alter table operator_runs add constraint operator_runs_state check (state in ('planned', 'running', 'finished'))`);
    await knex.raw(`create index operator_runs_running on operator_runs (started_at) where state = 'running'`);
    await knex.schema.createTable('operator_run_audit', (t) => {
      t.bigIncrements('id');
      t.uuid('run_id').notNullable().references('operator_runs.run_id').onDelete('CASCADE');
      t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.text('what').notNullable();
      t.text('by').notNullable();
      t.text('line').notNullable();
      t.index(['run_id', 'id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('operator_run_audit');
    await knex.schema.dropTable('operator_runs');
  },
};
