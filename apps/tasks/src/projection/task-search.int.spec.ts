import { randomUUID } from 'node:crypto';
import { noFacts, outcomeOf, stateOf, TaskFacts } from '@app/task-state';
import { ReactionWorld } from '@test/reaction-world';
import { tasksMigrations } from '../migrations';
import { countTasks, searchQuery, searchTasks, TaskFilter } from './task-search';

/** Facts of every shape a search meets: open, succeeded, refused, compensated, compensating, cancelled. */
const shapes: Array<Partial<TaskFacts>> = [
  { requested: true },
  { requested: true, debited: true, attemptsStarted: 1 },
  { requested: true, debited: true, succeeded: true, reportRef: 'r' },
  { requested: true, rejected: true, rejectionReason: 'no quota', rejectionCode: 'INSUFFICIENT_QUOTA' },
  { requested: true, rejected: true, rejectionReason: 'too late', rejectionCode: 'TIMED_OUT' },
  { requested: true, rejected: true, rejectionReason: 'written before codes' },
  { requested: true, debited: true, generationFailed: true, refunded: true, failureCode: 'MODEL_REJECTED', failureReason: 'no' },
  { requested: true, debited: true, generationFailed: true, failureCode: 'MODEL_UNAVAILABLE', failureReason: 'down' },
  { requested: true, debited: true, cancelled: true, cancelledBy: 'ops' },
];

interface Made {
  taskId: string;
  userId: string;
  reportType: string;
  state: string;
  errorCode: string | null;
  createdAt: number;
}

/** The error code a task failed (or is failing) with, by the rules: what the SQL must agree with. */
const errorCodeOf = (facts: TaskFacts) => {
  const outcome = outcomeOf(stateOf(facts) === 'COMPENSATING' ? { ...facts, generationFailed: true, refunded: true } : facts);
  return outcome?.eventType === 'TaskFailed' ? outcome.errorCode : null;
};

describe('task search: filters, counts per state, and the index each filter uses', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  const made: Made[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    await world.setup();
    const rows = Array.from({ length: 900 }, (_, i) => {
      const facts = { ...noFacts, ...shapes[i % shapes.length] };
      const task: Made = {
        taskId: randomUUID(),
        userId: `user-${i % 7}`,
        reportType: ['summary', 'audit', 'digest'][i % 3],
        state: stateOf(facts),
        errorCode: errorCodeOf(facts),
        createdAt: start + i * 60_000,
      };
      made.push(task);
      const row = { task_id: task.taskId, user_id: task.userId, report_type: task.reportType, state: task.state, facts: JSON.stringify(facts) };
      return { ...row, created_at: new Date(task.createdAt) };
    });
    await world.db.batchInsert('tasks', rows, 300);
  });
  afterAll(() => world.teardown());

  const filters: Array<[string, TaskFilter, (t: Made) => boolean]> = [
    ['everything', { owners: { allUsers: true } }, () => true],
    ['one user', { owners: { userId: 'user-3' } }, (t) => t.userId === 'user-3'],
    ['a state', { owners: { allUsers: true }, state: 'FAILED' }, (t) => t.state === 'FAILED'],
    ['a report type', { owners: { allUsers: true }, reportType: 'audit' }, (t) => t.reportType === 'audit'],
    ['an error code', { owners: { allUsers: true }, errorCode: 'TIMED_OUT' }, (t) => t.errorCode === 'TIMED_OUT'],
    ['a default error code', { owners: { allUsers: true }, errorCode: 'INSUFFICIENT_QUOTA' }, (t) => t.errorCode === 'INSUFFICIENT_QUOTA'],
    ['cancelled by code', { owners: { allUsers: true }, errorCode: 'CANCELLED' }, (t) => t.errorCode === 'CANCELLED'],
    [
      'all together',
      {
        owners: { userId: 'user-2' },
        reportType: 'summary',
        errorCode: 'MODEL_REJECTED',
        createdFrom: new Date(start + 100 * 60_000),
        createdBefore: new Date(start + 800 * 60_000),
      },
      (t) =>
        t.userId === 'user-2' &&
        t.reportType === 'summary' &&
        t.errorCode === 'MODEL_REJECTED' &&
        t.createdAt >= start + 100 * 60_000 &&
        t.createdAt < start + 800 * 60_000,
    ],
  ];

  it.each(filters)('%s: exactly the matching tasks, newest first, page by page, with counts per state', async (_, filter, matches) => {
    const expected = made.filter(matches).sort((a, b) => b.createdAt - a.createdAt);
    expect(expected.length).toBeGreaterThan(0);
    const found: Array<{ taskId: string; errorCode: string | null }> = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page: Awaited<ReturnType<typeof searchTasks>> = await searchTasks(world.db, filter, 100, offset);
      found.push(...page.items);
      offset = page.nextOffset;
    }
    expect(found.map((t) => t.taskId)).toEqual(expected.map((t) => t.taskId));
    expect(found.map((t) => t.errorCode)).toEqual(expected.map((t) => t.errorCode));
    const counts = await countTasks(world.db, filter);
    expect(counts.total).toBe(expected.length);
    for (const [state, n] of Object.entries(counts.byState)) expect(n).toBe(expected.filter((t) => t.state === state).length);
  });

  it.each([
    ['state', { owners: { allUsers: true }, state: 'FAILED' }, 'tasks_by_state'],
    ['reportType', { owners: { allUsers: true }, reportType: 'audit' }, 'tasks_by_report_type'],
    ['errorCode', { owners: { allUsers: true }, errorCode: 'TIMED_OUT' }, 'tasks_by_error_code'],
    ['createdFrom', { owners: { allUsers: true }, createdFrom: new Date(start) }, 'tasks_by_created_at'],
    ['userId', { owners: { userId: 'user-1' } }, 'tasks_user_id_created_at_index'],
  ] as Array<[string, TaskFilter, string]>)('a search by %s (%o) can be served by %s', async (_, filter, index) => {
    // With sequential scans priced out, the planner takes an index whenever one can serve the query:
    // it names this one only if its expression is the search's (the error code's above all).
    const plan = await world.db.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      const sql = searchQuery(trx, filter, 20, 0).toString().replace(/\?/g, '\\?');
      return (await trx.raw(`explain ${sql}`)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain(index);
  });
});
