import { Client } from 'pg';
import type { DomainEvent } from '@app/events';
import { eventOf, ReactionWorld } from '@test/reaction-world';
import { requested, tasksHandlers } from '@test/tasks-reactions';
import { waitFor } from '@test/wait-for';
import { tasksMigrations } from '../migrations';
import { loadTasksConfig } from '../tasks.config';
import { OperatorRunWorker } from './operator-run.worker';
import { findRun, planRun, startRun } from './operator-runs';

const handlers = tasksHandlers();
const config = loadTasksConfig({});
// The users are a partner's, as a partner's requests name them
const topic = 'partner.runs.task-requested';

/**
 * A bulk cancel is the tasks service's own run, in its database: worked by whichever instance holds
 * it, taken up where it was when that one stops, each task cancelled once, a busy row asked again.
 */
describe('tasks: operator runs, durable and resumed', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  const workers: OperatorRunWorker[] = [];
  beforeAll(() => world.setup());
  afterAll(async () => {
    for (const worker of workers) await worker.beforeApplicationShutdown();
    await world.teardown();
  });

  const worker = () => {
    const started = new OperatorRunWorker(world.db, config);
    workers.push(started);
    started.onApplicationBootstrap();
    return started;
  };
  const cancelsOf = async (taskIds: string[]) =>
    (await world.db('outbox').whereNull('topic').select('payload'))
      .map((row: { payload: string | DomainEvent }) => (typeof row.payload === 'string' ? (JSON.parse(row.payload) as DomainEvent) : row.payload))
      .filter((event) => event.eventType === 'TaskCancelled' && taskIds.includes(event.taskId)).length;

  it('cancels each planned task once across two instances, the second taking the run up where the first stopped, with its audit lines', async () => {
    const open = Array.from({ length: 4 }, () => requested('runs:owner'));
    const ended = requested('runs:owner');
    await world.reactOn(topic, handlers, ...open, ended);
    await world.react(
      handlers,
      eventOf('QuotaRejected', { reason: 'INSUFFICIENT_QUOTA', balance: 0 }, { taskId: ended.taskId, userId: ended.userId, producer: 'quota' }),
    );
    const items = [...open, ended].map((r) => r.taskId);
    const plan = await planRun(world.db, { kind: 'bulk-cancel', requestedBy: 'ops', filter: 'userId=runs%3Aowner', items, truncated: false });
    expect(plan).toMatchObject({ state: 'planned', done: 0, items });
    // A plan changes nothing until it is started
    expect(await cancelsOf(items)).toBe(0);

    await startRun(world.db, plan.runId, 'ops', 2);
    const first = worker();
    await waitFor(async () => (await findRun(world.db, plan.runId))!.done >= 2, { what: 'the first instance to cancel two tasks' });
    await first.beforeApplicationShutdown();
    const second = worker();
    second.wake();
    await waitFor(async () => (await findRun(world.db, plan.runId))!.state === 'finished', { what: 'the run to finish on the second instance' });

    const run = (await findRun(world.db, plan.runId))!;
    expect(run).toMatchObject({ done: 5, outcomes: { cancelled: 4, 'had ended': 1 }, failures: [] });
    expect(await cancelsOf(items)).toBe(4);
    expect(run.audit.map((a) => a.what)).toEqual(['planned', 'started', 'resumed', 'finished']);
    expect(run.audit.at(-1)!.line).toBe('bulk-cancel of 5 item(s) matching "userId=runs%3Aowner": 4 cancelled, 1 had ended, 0 failed');
    for (const { taskId } of open) expect((await world.db('tasks').where({ task_id: taskId }).first('state')).state).toBe('CANCELLED');
    // Started again: nothing changes
    expect((await startRun(world.db, plan.runId, 'ops', 2))!.audit).toHaveLength(4);
  });

  it('asks again for a task whose row stays locked past the lock timeout, and counts it cancelled, not ended', async () => {
    const busy = requested('runs:busy');
    await world.reactOn(topic, handlers, busy);
    const plan = await planRun(world.db, { kind: 'bulk-cancel', requestedBy: 'ops', filter: 'userId=runs%3Abusy', items: [busy.taskId], truncated: false });
    const holder = new Client({ connectionString: world.url });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select 1 from tasks where task_id = $1 for update', [busy.taskId]);
    await startRun(world.db, plan.runId, 'ops', 10);
    worker().wake();
    await new Promise((resolve) => setTimeout(resolve, config.keyLockTimeoutMs * 2 + 500));
    expect((await findRun(world.db, plan.runId))!.done).toBe(0);
    await holder.query('commit');
    await holder.end();
    await waitFor(async () => (await findRun(world.db, plan.runId))!.state === 'finished', { what: 'the busy run to finish' });
    expect(await findRun(world.db, plan.runId)).toMatchObject({ outcomes: { cancelled: 1 }, failures: [] });
  });
});
