import { ReactionWorld } from '@test/reaction-world';
import { requested, tasksHandlers } from '@test/tasks-reactions';
import { tasksMigrations } from '../../migrations';

const handlers = tasksHandlers();

describe('tasks: an outside TaskRequested → TaskAccepted, or TaskRejected', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('adopts a user’s first request: a data key issued, the input sealed in the acceptance and at rest, the task QUEUED', async () => {
    const request = requested('external:ann');
    const published = await world.react(handlers, request);
    expect(published.map((e) => e.eventType)).toEqual(['UserDataKey', 'TaskAccepted']);
    const accepted = published[1] as (typeof published)[1] & { input: string };
    expect(accepted).toMatchObject({ taskId: request.taskId, userId: 'external:ann', producer: 'tasks', causationId: request.eventId });
    expect(accepted.input).toMatch(/^sealed:v1:/);
    const task = await world.db('tasks').where({ task_id: request.taskId }).first('state', 'input');
    expect(task.state).toBe('QUEUED');
    expect(JSON.stringify(task.input)).not.toContain('tides');
    expect((await world.react(handlers, requested('external:ann'))).map((e) => e.eventType)).toEqual(['TaskAccepted']);
  });

  it('rejects an input that is not a JSON object, and a key reused with other content, keeping no task of either', async () => {
    const notAnObject = requested('external:bob', '[1,2]');
    expect(await world.react(handlers, notAnObject)).toEqual([expect.objectContaining({ eventType: 'TaskRejected', reason: 'INVALID_INPUT' })]);
    await world.react(handlers, requested('external:bob', '{"a":1}', 'key-1'));
    const reused = requested('external:bob', '{"a":2}', 'key-1');
    expect(await world.react(handlers, reused)).toEqual([
      expect.objectContaining({ eventType: 'TaskRejected', reason: 'KEY_REUSED', idempotencyKey: 'key-1' }),
    ]);
    expect(await world.db('tasks').whereIn('task_id', [notAnObject.taskId, reused.taskId]).count<Array<{ count: string }>>('* as count')).toEqual([
      { count: '0' },
    ]);
  });

  it('changes nothing for a task it already has, whatever the second request says', async () => {
    const first = requested('external:cy');
    await world.react(handlers, first);
    expect(await world.react(handlers, requested('external:cy', 'not json', null, first.taskId))).toEqual([]);
  });

  it("refuses a partner's request for a user outside its namespace, to that partner alone, touching nothing", async () => {
    const forged = requested('globex:dave');
    const published = await world.reactOn('partner.acme.task-requested', handlers, forged);
    expect(published).toEqual([expect.objectContaining({ eventType: 'TaskRejected', reason: 'NOT_YOUR_USER', userId: 'globex:dave' })]);
    expect(await world.db('tasks').where({ task_id: forged.taskId }).first()).toBeUndefined();
    expect(await world.db('outbox').where({ event_id: published[0].eventId }).pluck('topic')).toEqual(
      expect.arrayContaining([null, 'partner.acme.task-rejected']),
    );
    // The shared topic acts for no partner's user, and for no HTTP user; a partner for its own
    expect(await world.react(handlers, requested('acme:erin'))).toEqual([expect.objectContaining({ reason: 'NOT_YOUR_USER' })]);
    const forHttpUser = requested('erin');
    expect(await world.react(handlers, forHttpUser)).toEqual([expect.objectContaining({ reason: 'NOT_YOUR_USER', userId: 'erin' })]);
    expect(await world.db('tasks').where({ task_id: forHttpUser.taskId }).first()).toBeUndefined();
    const own = await world.reactOn('partner.acme.task-requested', handlers, requested('acme:erin'));
    expect(own.map((e) => e.eventType)).toEqual(['UserDataKey', 'TaskAccepted']);
  });
});
