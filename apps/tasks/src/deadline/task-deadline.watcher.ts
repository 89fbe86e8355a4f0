import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';
import { DomainEvent, EventOf, newEvent, requestAcceptor } from '@app/events';
import { outbox } from '@app/messaging';
import { registerLabelledReadGauge, registerReadGauge } from '@app/metrics';
import { WorkerLoop } from '@app/timing';
import { applyToTask } from '../projection/apply-to-task';
import { acceptanceOf } from '../submit/acceptance';
import { terminalStates } from '@app/task-state';
import { TASKS_CONFIG, TasksConfig } from '../tasks.config';

interface OpenTask {
  task_id: string;
  user_id: string;
}

const batch = 50;

/**
 * Nothing non-terminal is forgotten. A task with no outcome past TASK_DEADLINE has its accepted
 * request published again, once, under its own eventId: a consumer that lost it (a dead letter, an
 * offset moved past it) gets it again, the others skip it. Still without an outcome
 * TASK_DEADLINE_GRACE later, it is timed out: TaskTimedOut tells quota, which refuses it if it never
 * debited it (QuotaRejected{TIMED_OUT}, and the task fails as usual), and generation, which fails a
 * debited job with no outcome (GenerationFailed{TIMED_OUT}), so quota refunds it through the normal path.
 */
@Injectable()
export class TaskDeadlineWatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('task-deadline');
  private readonly loop: WorkerLoop;
  readonly stats = { republished: 0, timedOut: 0 };

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
  ) {
    this.loop = new WorkerLoop(() => this.round(), {
      name: 'task-deadline',
      logger: new Logger('task-deadline'),
      pollIntervalMs: config.deadlineCheckIntervalMs,
    });
  }

  onApplicationBootstrap(): void {
    registerLabelledReadGauge('tasks_by_state', 'Tasks by state', ['state'], () => this.countByState());
    registerReadGauge('tasks_past_deadline', 'Tasks with no outcome past TASK_DEADLINE (republished or not yet)', () => this.countPastDeadline());
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  private async round(): Promise<boolean> {
    const republished = await this.republishOverdue();
    const timedOut = await this.timeOutStuck();
    return republished === batch || timedOut === batch;
  }

  private async countByState(): Promise<Array<{ labels: { state: string }; value: number }>> {
    const rows: Array<{ state: string; count: string }> = await this.knex('tasks').select('state').count({ count: '*' }).groupBy('state');
    return rows.map((r) => ({ labels: { state: r.state }, value: Number(r.count) }));
  }

  private async countPastDeadline(): Promise<number> {
    const cutoff = new Date(Date.now() - this.config.taskDeadlineMs);
    const [{ count }] = await this.knex('tasks')
      .whereNotIn('state', [...terminalStates])
      .where('created_at', '<', cutoff)
      .count({ count: '*' });
    return Number(count);
  }

  private openTasks(trx: Knex.Transaction) {
    return trx('tasks')
      .select('task_id', 'user_id')
      .whereNotIn('state', [...terminalStates])
      .orderBy('created_at')
      .limit(batch)
      .forUpdate()
      .skipLocked();
  }

  private async republishOverdue(): Promise<number> {
    const cutoff = new Date(Date.now() - this.config.taskDeadlineMs);
    return this.knex.transaction(async (trx) => {
      const tasks: OpenTask[] = await this.openTasks(trx).where('created_at', '<', cutoff).whereNull('republished_at');
      for (const task of tasks) {
        const request = await acceptedRequestOf(trx, task.task_id);
        if (request) {
          await outbox.republish(trx, request);
          await applyToTask(trx, request, (event) => outbox.add(trx, event));
        }
        await trx('tasks').where({ task_id: task.task_id }).update({ republished_at: trx.fn.now() });
        this.stats.republished++;
        this.logger.warn(`task ${task.task_id} has no outcome past the deadline: ${request ? 'its request is published again' : 'no request of it is known'}`);
      }
      return tasks.length;
    });
  }

  private async timeOutStuck(): Promise<number> {
    const cutoff = new Date(Date.now() - this.config.taskDeadlineGraceMs);
    return this.knex.transaction(async (trx) => {
      const tasks: OpenTask[] = await this.openTasks(trx).where('republished_at', '<', cutoff).whereNull('timed_out_at');
      for (const task of tasks) {
        const request = await acceptedRequestOf(trx, task.task_id);
        const origin = {
          taskId: task.task_id,
          userId: task.user_id,
          correlationId: request?.correlationId ?? task.task_id,
          causationId: request?.eventId ?? null,
        };
        const seconds = Math.round((this.config.taskDeadlineMs + this.config.taskDeadlineGraceMs) / 1000);
        const timedOut = newEvent('TaskTimedOut', { reason: `no outcome within ${seconds} s, its request published again once` }, origin, 'tasks');
        const publish = (event: DomainEvent) => outbox.add(trx, event);
        await publish(timedOut);
        await applyToTask(trx, timedOut, publish);
        await trx('tasks').where({ task_id: task.task_id }).update({ timed_out_at: trx.fn.now() });
        this.stats.timedOut++;
        this.logger.warn(`task ${task.task_id} timed out: quota is told, so that it is refused or, if debited, failed and refunded`);
      }
      return tasks.length;
    });
  }
}

/**
 * The request the tasks service accepted for the task, as its timeline holds it. A task accepted
 * under the old scheme (its request written to task-requested by tasks itself) has no TaskAccepted:
 * it gets one now, caused by that request, which is in our own timeline.
 */
async function acceptedRequestOf(trx: Knex.Transaction, taskId: string): Promise<DomainEvent | undefined> {
  const accepted = await trx('task_timeline').where({ task_id: taskId, event_type: 'TaskAccepted' }).orderBy('id').first();
  if (accepted) return accepted.payload as DomainEvent;
  const legacy = await trx('task_timeline').where({ task_id: taskId, event_type: 'TaskRequested', producer: requestAcceptor }).orderBy('id').first();
  if (!legacy) return undefined;
  return acceptanceOf(legacy.payload as EventOf<'TaskRequested'>);
}
