import { randomBytes } from 'node:crypto';
import { migrateToLatest } from '@app/database';
import { masterKeysOf, PersonalData } from '@app/personal-data';
import { ProblemWithHeaders } from '@app/service';
import { eventOf, ReactionWorld } from '@test/reaction-world';
import { requested, tasksHandlers } from '@test/tasks-reactions';
import { tasksMigrations } from '../migrations';
import { submitTask } from '../submit/submit-task';
import { loadTasksConfig } from '../tasks.config';
import { partnerLimits } from '../migrations/009-partner-limits';
import { limitsWithUse, setLimits } from './partner-limits';

const handlers = tasksHandlers();
const config = loadTasksConfig({});
const personal = new PersonalData(masterKeysOf(JSON.stringify({ current: 'mk-1', keys: { 'mk-1': randomBytes(32).toString('base64') } })));
const submission = (userId: string) => ({ userId, reportType: 'summary', input: { topic: 'tides' } });
const reasons = (published: Array<{ eventType: string; reason?: unknown }>) =>
  published.filter((e) => e.eventType !== 'UserDataKey').map((e) => (e.eventType === 'TaskRejected' ? e.reason : e.eventType));

/**
 * A partner names its users, so each user it invents used to bring an open-task cap and a rate of
 * its own: the namespace's limits hold across all of them, by Kafka and by POST /tasks.
 */
describe("tasks: a namespace's limits across the users it names", () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const openOf = async (partner: string) => (await limitsWithUse(world.db, partner, config.partnerDefaults)).openTasks;
  const userSlotsOf = async (prefix: string) =>
    Number((await world.db('user_open_tasks').where('user_id', 'like', `${prefix}:%`).sum<Array<{ sum: string | null }>>('open_tasks as sum'))[0].sum ?? 0);

  it('adopts as many tasks of invented users as the namespace may have open, refuses the rest without a slot kept, and takes one again once a task ends', async () => {
    await setLimits(world.db, 'capped', { maxOpenTasks: 3 });
    const requests = Array.from({ length: 10 }, (_, i) => requested(`capped:invented-${i}`));
    const published = await world.reactOn('partner.capped.task-requested', handlers, ...requests);
    expect(reasons(published)).toEqual([...Array(3).fill('TaskAccepted'), ...Array(7).fill('PARTNER_TOO_MANY_OPEN_TASKS')]);
    expect(await openOf('capped')).toBe(3);
    expect(await userSlotsOf('capped')).toBe(3);
    expect(await world.db('tasks').where('user_id', 'like', 'capped:%').count<Array<{ count: string }>>('* as count')).toEqual([{ count: '3' }]);
    // When one of them ends (quota refuses it), its slot is the namespace's again
    const first = requests[0];
    await world.react(
      handlers,
      eventOf('QuotaRejected', { reason: 'INSUFFICIENT_QUOTA', balance: 0 }, { taskId: first.taskId, userId: first.userId, producer: 'quota' }),
    );
    expect(await openOf('capped')).toBe(2);
    expect(reasons(await world.reactOn('partner.capped.task-requested', handlers, requested('capped:late')))).toEqual(['TaskAccepted']);
    expect(reasons(await world.reactOn('partner.capped.task-requested', handlers, requested('capped:later')))).toEqual(['PARTNER_TOO_MANY_OPEN_TASKS']);
  });

  it("refuses a namespace's requests past its rate and burst, whoever they are for, and leaves another namespace's alone", async () => {
    await setLimits(world.db, 'hasty', { rateLimit: 1, rateBurst: 4 });
    const published = await world.reactOn('partner.hasty.task-requested', handlers, ...Array.from({ length: 8 }, (_, i) => requested(`hasty:u${i}`)));
    // 4 in the burst, and at most one more refilled while the batch ran
    const accepted = reasons(published).filter((r) => r === 'TaskAccepted').length;
    expect(accepted).toBeGreaterThanOrEqual(4);
    expect(accepted).toBeLessThanOrEqual(5);
    expect(reasons(published).slice(accepted)).toEqual(Array(8 - accepted).fill('PARTNER_RATE_LIMITED'));
    expect(await world.db('tasks').where('user_id', 'like', 'hasty:%').count<Array<{ count: string }>>('* as count')).toEqual([{ count: String(accepted) }]);
    const neighbour = await world.reactOn('partner.calm.task-requested', handlers, ...Array.from({ length: 8 }, (_, i) => requested(`calm:u${i}`)));
    expect(reasons(neighbour)).toEqual(Array(8).fill('TaskAccepted'));
  });

  it("holds POST /tasks for a namespace's users to the same cap, 20 at once on one that may have 5: exactly 5, nothing of the others written", async () => {
    await setLimits(world.db, 'webby', { maxOpenTasks: 5 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submitTask(world.db, config, personal, `key-${i}`, submission(`webby:u${i}`)).catch((error: unknown) => error)),
    );
    const refused = answers.filter((a): a is ProblemWithHeaders => a instanceof ProblemWithHeaders);
    expect(answers.filter((a) => (a as { status?: number }).status === 202)).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const problem of refused) {
      expect(problem.getStatus()).toBe(429);
      expect(problem.message).toContain('the users of webby have 5 unfinished tasks together');
    }
    expect(await openOf('webby')).toBe(5);
    expect(await userSlotsOf('webby')).toBe(5);
    expect(await world.db('tasks').where('user_id', 'like', 'webby:%').count<Array<{ count: string }>>('* as count')).toEqual([{ count: '5' }]);
    expect(await world.db('idempotency_keys').where('user_id', 'like', 'webby:%').count<Array<{ count: string }>>('* as count')).toEqual([{ count: '5' }]);
    // An HTTP user of no namespace is held to no namespace's cap
    expect(await submitTask(world.db, config, personal, 'key-plain', submission('plain-user'))).toMatchObject({ status: 202 });
  });

  it("counts, as it is added, each namespace's open tasks from its users' (a user of no namespace in none)", async () => {
    const before = await new ReactionWorld('tasks', tasksMigrations.slice(0, tasksMigrations.indexOf(partnerLimits))).setup();
    try {
      await before.db('user_open_tasks').insert([
        { user_id: 'acme:ann', open_tasks: 2 },
        { user_id: 'acme:bob', open_tasks: 3 },
        { user_id: 'external:cy', open_tasks: 1 },
        { user_id: 'plain', open_tasks: 7 },
        { user_id: 'Not_A_Partner:dee', open_tasks: 4 },
      ]);
      await migrateToLatest(before.db, tasksMigrations);
      expect(await before.db('partner_open_tasks').orderBy('partner').select('partner', 'open_tasks')).toEqual([
        { partner: 'acme', open_tasks: 5 },
        { partner: 'external', open_tasks: 1 },
      ]);
    } finally {
      await before.teardown();
    }
  });
});
