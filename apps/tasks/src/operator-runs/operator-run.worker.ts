import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { isLockTimeout, KNEX, setLockTimeout } from '@app/database';
import { WorkerLoop } from '@app/timing';
import { TASKS_CONFIG, TasksConfig } from '../tasks.config';
import { audit } from './operator-runs';
import { runSteps, StepResult } from './run-steps';

/** How long a run stays with the instance working it without a step: a killed instance's run is taken up after this. */
export const runLeaseMs = 15_000;
/** How often an item whose row stays busy is asked: a row locked for that long is a failure to report, not an end. */
const busyRetries = 5;

interface ClaimedRun {
  run_id: string;
  kind: keyof typeof runSteps;
  started_by: string;
  rate: number;
  previous_owner: string | null;
}

type Step = 'stepped' | 'busy' | 'finished' | 'lost';

/**
 * Works through started operator runs (operator-runs.ts), one at a time, wherever it runs: a run is
 * taken with a lease that each step renews, so that a run whose instance stopped or died is taken up
 * by the next (or the same, restarted) once its lease lapses, from the item it had reached — each
 * item's change and its count are one transaction. Every start, take-up and end is an audit row and
 * a log line.
 */
@Injectable()
export class OperatorRunWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('operator-runs');
  private readonly owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  private readonly loop: WorkerLoop;
  private lastCleanup = 0;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
  ) {
    this.loop = new WorkerLoop(() => this.round(), { name: 'operator-runs', logger: this.logger, pollIntervalMs: 1000 });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /** A run being worked is given back (its lease ended now), so that another instance takes it up at once. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.knex('operator_runs').where({ lease_owner: this.owner }).update({ lease_until: this.knex.fn.now() });
  }

  /** Wakes the loop: a run just started is taken at once rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  private async round(): Promise<boolean> {
    const run = await this.claim();
    if (!run) {
      await this.forgetOldPlans();
      return false;
    }
    if (run.previous_owner) await audit(this.knex, run.run_id, 'resumed', `tasks instance ${this.owner}`, `taken up after ${run.previous_owner}`);
    const began = Date.now();
    let busy = 0;
    for (let stepped = 0; this.loop.running;) {
      const step = await this.step(run, busy);
      if (step === 'finished' || step === 'lost') return true;
      busy = step === 'busy' ? busy + 1 : 0;
      if (step === 'stepped') stepped++;
      await sleep(step === 'busy' ? 1000 : Math.max(0, began + (stepped * 1000) / run.rate - Date.now()));
    }
    return false;
  }

  /** The oldest started run that no instance holds, leased to this one. */
  private async claim(): Promise<ClaimedRun | undefined> {
    const { rows } = await this.knex.raw<{ rows: ClaimedRun[] }>(
      `with next as (
         select run_id, lease_owner from operator_runs
         where state = 'running' and (lease_until is null or lease_until < now())
         order by started_at limit 1 for update skip locked)
       update operator_runs r set lease_owner = ?, lease_until = now() + ? * interval '1 millisecond'
       from next where r.run_id = next.run_id
       returning r.run_id, r.kind, r.started_by, r.rate, next.lease_owner as previous_owner`,
      [this.owner, runLeaseMs],
    );
    return rows[0];
  }

  /** The next item, with its count and the lease renewed, in one transaction; the run finished when none is left. */
  private async step(run: ClaimedRun, busyBefore: number): Promise<Step> {
    return this.knex.transaction(async (trx) => {
      await setLockTimeout(trx, this.config.keyLockTimeoutMs);
      const row: { done: number; items: string[] } | undefined = await trx('operator_runs')
        .where({ run_id: run.run_id, lease_owner: this.owner, state: 'running' })
        .forUpdate()
        .first('done', 'items');
      if (!row) return 'lost';
      if (row.done >= row.items.length) return this.finish(trx, run);
      const item = row.items[row.done];
      let result: StepResult | 'busy';
      try {
        result = await trx.transaction((savepoint) => runSteps[run.kind](savepoint, { runId: run.run_id, startedBy: run.started_by }, item));
      } catch (error) {
        result = isLockTimeout(error) ? 'busy' : { failed: (error as Error).message };
      }
      if (result === 'busy' && busyBefore + 1 < busyRetries) {
        await this.renew(trx, run);
        return 'busy';
      }
      if (result === 'busy') result = { failed: `still busy after ${busyRetries} tries` };
      await trx('operator_runs')
        .where({ run_id: run.run_id })
        .update({
          done: trx.raw('done + 1'),
          ...('outcome' in result
            ? { outcomes: trx.raw(`outcomes || jsonb_build_object(?::text, coalesce((outcomes->>?)::int, 0) + 1)`, [result.outcome, result.outcome]) }
            : { failures: trx.raw(`failures || to_jsonb(?::text)`, [`${item}: ${result.failed.slice(0, 500)}`]) }),
          lease_until: trx.raw(`now() + ? * interval '1 millisecond'`, [runLeaseMs]),
        });
      return 'stepped';
    });
  }

  private async renew(trx: Knex.Transaction, run: ClaimedRun): Promise<void> {
    await trx('operator_runs')
      .where({ run_id: run.run_id })
      .update({ lease_until: trx.raw(`now() + ? * interval '1 millisecond'`, [runLeaseMs]) });
  }

  private async finish(trx: Knex.Transaction, run: ClaimedRun): Promise<Step> {
    const [ended] = (await trx('operator_runs')
      .where({ run_id: run.run_id })
      .update({ state: 'finished', finished_at: trx.fn.now(), lease_owner: null, lease_until: null }, [
        'kind',
        'items',
        'filter',
        'outcomes',
        'failures',
      ])) as Array<{
      kind: string;
      items: string[];
      filter: string;
      outcomes: Record<string, number>;
      failures: string[];
    }>;
    const counts = [...Object.entries(ended.outcomes).map(([outcome, n]) => `${n} ${outcome}`), `${ended.failures.length} failed`].join(', ');
    await audit(trx, run.run_id, 'finished', run.started_by, `${ended.kind} of ${ended.items.length} item(s) matching "${ended.filter}": ${counts}`);
    return 'finished';
  }

  /** Dry runs nobody started are forgotten after a day; runs that ran are kept, with their audit lines. */
  private async forgetOldPlans(): Promise<void> {
    if (Date.now() - this.lastCleanup < 60_000) return;
    this.lastCleanup = Date.now();
    await this.knex('operator_runs').where({ state: 'planned' }).where('planned_at', '<', this.knex.raw(`now() - interval '1 day'`)).delete();
  }
}
