import type { Knex } from 'knex';
import { DomainEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { cancelTask, lockTaskToCancel } from '../cancel/cancel-task';
import type { OperatorRunKind } from './operator-runs';

/** How one item ended: counted under its outcome, or listed with why it failed. */
export type StepResult = { outcome: string } | { failed: string };

/** The run as its steps need it. */
export interface RunningRun {
  runId: string;
  startedBy: string;
}

/**
 * One item of a run, in the transaction that also counts it done: it happens once, whatever stops in
 * between. A row that stays locked past the lock timeout throws (Postgres 55P03), and the worker
 * asks again.
 */
export type RunStep = (trx: Knex.Transaction, run: RunningRun, item: string) => Promise<StepResult>;

/** A task cancelled as its owner's cancel would be, by whoever started the run; one that had ended keeps its outcome. */
async function cancelOne(trx: Knex.Transaction, run: RunningRun, taskId: string): Promise<StepResult> {
  const task = await lockTaskToCancel(trx, taskId);
  if (!task) return { failed: 'no such task (erased since the dry run?)' };
  const publish = (event: DomainEvent) => outbox.add(trx, event);
  const decision = await cancelTask(trx, task, run.startedBy, null, publish);
  return { outcome: decision.kind === 'cancelled' ? 'cancelled' : 'had ended' };
}

export const runSteps: Record<OperatorRunKind, RunStep> = {
  'bulk-cancel': cancelOne,
};
