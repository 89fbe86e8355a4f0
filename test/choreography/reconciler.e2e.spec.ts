import { Platform } from '../support/platform';

describe('the reconciler', () => {
  // A model timeout far beyond the deadline: only the reconciler can end the task in time.
  const platform = new Platform({ MODEL_TIMEOUT: '60s', RECONCILE_DEADLINE: '2s', RECONCILE_INTERVAL: '200ms' });
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it('fails, through the normal path, a task whose model call hangs past the deadline: refunded and told', async () => {
    // When the model never answers
    const { taskId } = (await platform.submit('stuck-user', { simulate: { hang: true } })).body;

    // Then past the deadline the task is compensated with a reason
    const task = await platform.settled(taskId, 30_000);
    expect(task).toMatchObject({ state: 'COMPENSATED', attempts: 1, reason: 'no outcome within 2 s of the debit' });
    const failed = task.timeline.find((e: { eventType: string }) => e.eventType === 'GenerationFailed');
    expect(failed.data).toMatchObject({ errorClass: 'TIMED_OUT', errorCode: 'TIMED_OUT' });
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskFailed').data).toMatchObject({ compensated: true });
    // And the quota came back, the model request was cancelled, the attempt is recorded as stopped
    expect(await platform.quota('stuck-user')).toMatchObject({ balance: 10, debited: 1, refunded: 1 });
    expect(await platform.cancellations()).toContain(`${taskId}.1`);
    expect((await platform.generation(taskId)).attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', errorCode: 'TIMED_OUT', errorMessage: 'stopped by the reconciler' }),
    ]);
  });

  it('leaves a task that completes in time alone', async () => {
    const task = await platform.settled((await platform.submit('quick-user', {})).body.taskId);
    expect(task.state).toBe('SUCCESS');
  });
});
