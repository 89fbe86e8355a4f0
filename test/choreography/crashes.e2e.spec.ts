import { Client } from 'pg';
import { relayLockKey } from '@app/messaging/testing';
import { Platform } from '../support/platform';
import { waitFor } from '../support/wait-for';

describe('services killed with SIGKILL in the middle of a task', () => {
  // Backoff long enough to kill generation inside it.
  const platform = new Platform({ GENERATION_RETRY_DELAYS: '3s,3s,3s', MODEL_TIMEOUT: '3s' });
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it('generation killed while a task waits in backoff: after a restart the task completes, charged once', async () => {
    // Given a task whose first attempt failed and whose retry is scheduled
    const { taskId } = (await platform.submit('backoff-user', { simulate: { transientFailures: 1 } })).body;
    await waitFor(async () => (await platform.task(taskId)).state === 'RETRYING', { what: 'the retry to be scheduled' });

    // When generation is killed and started again
    await platform.kill('generation');
    await platform.startApp('generation');

    // Then the schedule survived in the database: the second attempt runs and succeeds
    const task = await platform.settled(taskId);
    expect(task).toMatchObject({ state: 'SUCCESS', attempts: 2 });
    expect(await platform.quota('backoff-user')).toMatchObject({ debited: 1, refunded: 0 });
  });

  it('generation killed in the middle of a model call: the attempt counts as interrupted and the task still completes', async () => {
    // Given an attempt under way, the model taking its time
    const { taskId } = (await platform.submit('midway-user', { simulate: { latencyMs: 1500 } })).body;
    await waitFor(async () => (await platform.task(taskId)).state === 'RUNNING', { what: 'the attempt to start' });

    // When generation is killed during the call and started again
    await platform.kill('generation');
    await platform.startApp('generation');

    // Then once the dead attempt's lease runs out it is recorded as interrupted, retried, and the task completes
    const task = await platform.settled(taskId);
    expect(task).toMatchObject({ state: 'SUCCESS', attempts: 2 });
    const generation = await platform.generation(taskId);
    expect(generation.attempts.map((a: { outcome: string; errorCode: string | null }) => [a.outcome, a.errorCode])).toEqual([
      ['retry', 'ATTEMPT_INTERRUPTED'],
      ['succeeded', null],
    ]);
    expect(await platform.quota('midway-user')).toMatchObject({ debited: 1, refunded: 0 });
  });

  it('quota killed between committing a debit and publishing it: after a restart, one debit and the task completes', async () => {
    // Given quota's relay kept from publishing: this test holds the relay's lock in quota's database,
    // taken while quota was down (a running relay holds it for as long as its session lives)
    await platform.kill('quota');
    const lock = new Client({ connectionString: platform.env.databaseUrl('quota') });
    await lock.connect();
    await lock.query('select pg_advisory_lock($1)', [relayLockKey]);
    await platform.startApp('quota');
    try {
      // When a task is submitted, its debit commits, and quota is killed before the debit is published
      const { taskId } = (await platform.submit('debit-user', { text: 'x' })).body;
      const quotaDb = new Client({ connectionString: platform.env.databaseUrl('quota') });
      await quotaDb.connect();
      await waitFor(
        async () => {
          const debit = await quotaDb.query(`select 1 from quota_ledger where task_id = $1 and kind = 'debit'`, [taskId]);
          const unpublished = await quotaDb.query(`select 1 from outbox where message_key = $1 and event_type = 'QuotaDebited' and published_at is null`, [
            taskId,
          ]);
          return debit.rowCount === 1 && unpublished.rowCount === 1;
        },
        { what: 'the committed, unpublished debit' },
      );
      await quotaDb.end();
      await platform.kill('quota');
      expect((await platform.task(taskId)).state).toBe('QUEUED');
      await lock.end();

      // And quota is started again
      await platform.startApp('quota');

      // Then the debit is published once, the task completes, and the user paid once
      const task = await platform.settled(taskId);
      expect(task.state).toBe('SUCCESS');
      expect(task.timeline.filter((e: { eventType: string }) => e.eventType === 'QuotaDebited')).toHaveLength(1);
      expect(await platform.quota('debit-user')).toMatchObject({ balance: 9, debited: 1 });
    } finally {
      await lock.end().catch(() => undefined);
    }
  });
});
