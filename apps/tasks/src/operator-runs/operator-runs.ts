import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Knex } from 'knex';

const logger = new Logger('operator-runs');

/** The kinds of run there are; each has its step (operator-run-steps.ts). */
export type OperatorRunKind = 'bulk-cancel';

export interface AuditLine {
  at: string;
  what: 'planned' | 'started' | 'resumed' | 'finished';
  by: string;
  line: string;
}

/** A run as an operator reads it: what it was asked, how far it is, and its audit lines. */
export interface OperatorRun {
  runId: string;
  kind: OperatorRunKind;
  requestedBy: string;
  /** What picked the items (a bulk cancel's: the tasks' query string). */
  filter: string;
  items: string[];
  /** The filter matched more than a run takes: only the newest are in it. */
  truncated: boolean;
  state: 'planned' | 'running' | 'finished';
  rate: number | null;
  startedBy: string | null;
  done: number;
  /** Items by how they ended (a bulk cancel's: `cancelled`, `had ended`). */
  outcomes: Record<string, number>;
  /** `<item>: why`, one an item that failed. */
  failures: string[];
  plannedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  audit: AuditLine[];
}

interface RunRow {
  run_id: string;
  kind: OperatorRunKind;
  requested_by: string;
  filter: string;
  items: string[];
  truncated: boolean;
  state: OperatorRun['state'];
  rate: number | null;
  started_by: string | null;
  done: number;
  outcomes: Record<string, number>;
  failures: string[];
  planned_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const iso = (at: Date | null) => (at ? at.toISOString() : null);

function runOf(row: RunRow, audit: AuditLine[]): OperatorRun {
  return {
    runId: row.run_id,
    kind: row.kind,
    requestedBy: row.requested_by,
    filter: row.filter,
    items: row.items,
    truncated: row.truncated,
    state: row.state,
    rate: row.rate,
    startedBy: row.started_by,
    done: row.done,
    outcomes: row.outcomes,
    failures: row.failures,
    plannedAt: row.planned_at.toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    audit,
  };
}

/** Writes an audit line beside the change it tells, in the same transaction, and to the log. */
export async function audit(trx: Knex | Knex.Transaction, runId: string, what: AuditLine['what'], by: string, line: string): Promise<void> {
  await trx('operator_run_audit').insert({ run_id: runId, what, by, line });
  logger.log(`audit: ${by} ${what} run ${runId}: ${line}`);
}

/** A planned run (its dry run's answer): nothing is done until it is started. */
export async function planRun(
  knex: Knex,
  plan: { kind: OperatorRunKind; requestedBy: string; filter: string; items: string[]; truncated: boolean },
): Promise<OperatorRun> {
  const runId = randomUUID();
  await knex.transaction(async (trx) => {
    await trx('operator_runs').insert({
      run_id: runId,
      kind: plan.kind,
      requested_by: plan.requestedBy,
      filter: plan.filter,
      items: plan.items,
      truncated: plan.truncated,
    });
    await audit(trx, runId, 'planned', plan.requestedBy, `${plan.kind} of ${plan.items.length} item(s) matching "${plan.filter}"`);
  });
  return (await findRun(knex, runId))!;
}

/** Starts a planned run once: a second start, or a start of a run already going, changes nothing. */
export async function startRun(knex: Knex, runId: string, by: string, rate: number): Promise<OperatorRun | undefined> {
  await knex.transaction(async (trx) => {
    const started = await trx('operator_runs')
      .where({ run_id: runId, state: 'planned' })
      .update({ state: 'running', rate, started_by: by, started_at: trx.fn.now() }, ['kind', 'items', 'filter']);
    if (started.length === 0) return;
    const [{ kind, items, filter }] = started as Array<{ kind: string; items: string[]; filter: string }>;
    await audit(trx, runId, 'started', by, `${kind} of ${items.length} item(s) matching "${filter}" at ${rate}/s`);
  });
  return findRun(knex, runId);
}

export async function findRun(knex: Knex, runId: string): Promise<OperatorRun | undefined> {
  const row: RunRow | undefined = await knex('operator_runs').where({ run_id: runId }).first();
  if (!row) return undefined;
  const lines: Array<{ at: Date; what: AuditLine['what']; by: string; line: string }> = await knex('operator_run_audit')
    .where({ run_id: runId })
    .orderBy('id')
    .select('at', 'what', 'by', 'line');
  return runOf(
    row,
    lines.map((l) => ({ ...l, at: l.at.toISOString() })),
  );
}

/** The newest runs, without their items or audit lines (GET /operator-runs/{id} has those). */
export async function recentRuns(knex: Knex, limit: number): Promise<Array<Omit<OperatorRun, 'items' | 'audit'> & { itemCount: number }>> {
  const rows: Array<RunRow & { item_count: number }> = await knex('operator_runs')
    .orderBy('planned_at', 'desc')
    .limit(limit)
    .select('*', knex.raw('cardinality(items) as item_count'));
  return rows.map((row) => {
    const { items: _items, audit: _audit, ...run } = runOf(row, []);
    return { ...run, itemCount: row.item_count };
  });
}
