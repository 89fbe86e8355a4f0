import { eventOf, ReactionWorld } from '@test/reaction-world';
import { requested, tasksHandlers } from '@test/tasks-reactions';
import { tasksMigrations } from '../../migrations';

const handlers = tasksHandlers();

describe('tasks: an outside TaskCancelRequested → TaskCancelled, or TaskCancelRejected', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const cancelRequested = (userId: string, taskId: string) => eventOf('TaskCancelRequested', {}, { userId, taskId, producer: 'external' });

  it('cancels the user’s task with no outcome (TaskCancelled and its one outcome, TaskFailed{CANCELLED}); a second cancel finds it ended', async () => {
    const request = requested('external:ann');
    await world.react(handlers, request);
    const cancelled = await world.react(handlers, cancelRequested('external:ann', request.taskId));
    expect(cancelled.map((e) => e.eventType)).toEqual(['TaskCancelled', 'TaskFailed']);
    expect(cancelled[1]).toMatchObject({ errorCode: 'CANCELLED', compensated: true, reason: 'cancelled by external:ann' });
    expect(await world.db('tasks').where({ task_id: request.taskId }).first('state')).toEqual({ state: 'CANCELLED' });
    expect(await world.react(handlers, cancelRequested('external:ann', request.taskId))).toEqual([
      expect.objectContaining({ eventType: 'TaskCancelRejected', reason: 'ALREADY_ENDED', state: 'CANCELLED' }),
    ]);
  });

  it('refuses a cancel of another user’s task as UNKNOWN_TASK and leaves the task as it was', async () => {
    const request = requested('external:bob');
    await world.react(handlers, request);
    expect(await world.react(handlers, cancelRequested('external:mallory', request.taskId))).toEqual([
      expect.objectContaining({ eventType: 'TaskCancelRejected', reason: 'UNKNOWN_TASK', state: null }),
    ]);
    expect(await world.db('tasks').where({ task_id: request.taskId }).first('state')).toEqual({ state: 'QUEUED' });
  });

  it("refuses a partner's cancel for a user outside its namespace as NOT_YOUR_USER, to that partner, and the task runs on", async () => {
    const request = requested('globex:carl');
    await world.reactOn('partner.globex.task-requested', handlers, request);
    const refused = await world.reactOn('partner.acme.task-cancel-requested', handlers, cancelRequested('globex:carl', request.taskId));
    expect(refused).toEqual([expect.objectContaining({ eventType: 'TaskCancelRejected', reason: 'NOT_YOUR_USER', state: null })]);
    expect(await world.db('outbox').where({ event_id: refused[0].eventId }).whereNotNull('topic').pluck('topic')).toEqual([
      'partner.acme.task-cancel-rejected',
    ]);
    expect(await world.db('tasks').where({ task_id: request.taskId }).first('state')).toEqual({ state: 'QUEUED' });
  });

  it("copies a partner's user's outcome to that partner's topic once the partner is known, and a stranger's namespace nowhere", async () => {
    await world.db('partners').insert({ name: 'acme' }).onConflict('name').ignore();
    const copiesOfFailure = async (userId: string, partner: string) => {
      const request = requested(userId);
      await world.reactOn(`partner.${partner}.task-requested`, handlers, request);
      const [, failed] = await world.reactOn(`partner.${partner}.task-cancel-requested`, handlers, cancelRequested(userId, request.taskId));
      expect(failed).toMatchObject({ eventType: 'TaskFailed', errorCode: 'CANCELLED' });
      return world.db('outbox').where({ event_id: failed.eventId }).whereNotNull('topic').pluck('topic');
    };
    expect(await copiesOfFailure('acme:fay', 'acme')).toEqual(['partner.acme.task-failed']);
    expect(await copiesOfFailure('initech:gus', 'initech')).toEqual([]);
  });
});
