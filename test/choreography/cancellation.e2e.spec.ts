import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { JsonBody } from '../support/json-body';
import { Platform } from '../support/platform';
import { waitFor } from '../support/wait-for';
import { setTimeout as sleep } from 'node:timers/promises';

const types = (task: JsonBody): string[] => task.timeline.map((e: { eventType: string }) => e.eventType);
const count = (task: JsonBody, type: string) => types(task).filter((t) => t === type).length;

/**
 * Each race of a cancel against the task's own events, made to happen: the cancel comes while quota is
 * down, while the model hangs, while a retry waits, after the outcome, and twice at once. Every end
 * state is checked: cancelled ⇒ charged nothing and told once; success ⇒ charged once.
 */
describe('cancelling a task, whatever it is doing', () => {
  // Model calls hang for real (no 500 ms timeout), and a retry waits long enough to cancel it.
  const platform = new Platform({ MODEL_TIMEOUT: '30s', GENERATION_RETRY_DELAYS: '4s,4s,4s', DEFAULT_QUOTA: '5' });
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  /** The end of a cancelled task: CANCELLED, one TaskFailed{CANCELLED}, never charged, told once, no report. */
  async function expectCancelledAndFree(taskId: string, user: string, cancelledBy = user): Promise<JsonBody> {
    let task = await platform.settled(taskId);
    expect(task).toMatchObject({ state: 'CANCELLED', reason: `cancelled by ${cancelledBy}` });
    expect(count(task, 'TaskCancelled')).toBe(1);
    expect(count(task, 'TaskFailed')).toBe(1);
    expect(count(task, 'TaskCompleted')).toBe(0);
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskFailed').data).toMatchObject({ errorCode: 'CANCELLED', compensated: true });
    // Quota's answer to the cancel: the debit refunded, or the task refused if it had not been debited
    const quotaAnswered = async () => {
      const answered = types(await platform.task(taskId));
      return answered.includes('QuotaRefunded') || answered.includes('QuotaRejected');
    };
    await waitFor(quotaAnswered, { what: `quota to answer the cancel of ${taskId}` });
    await platform.consumersCaughtUp();
    task = await platform.task(taskId);
    expect(count(task, 'QuotaDebited')).toBe(count(task, 'QuotaRefunded'));
    const notes = await platform.notifications(user);
    expect(notes.filter((n) => n.taskId === taskId)).toEqual([
      expect.objectContaining({ outcome: 'TaskFailed', message: `Your report was cancelled by ${cancelledBy}. You are not charged for it.` }),
    ]);
    expect(fs.existsSync(path.join(platform.reportsDir, `${taskId}.md`))).toBe(false);
    expect((await platform.generation(taskId)).status).toBe('cancelled');
    return task;
  }

  it('while queued, before quota has debited it: never charged, and the model is never called', async () => {
    // Given quota is down, so the task waits for its debit
    await platform.kill('quota');
    const { body } = await platform.submit('queued-canceller', { text: 'never run' });

    // When its owner cancels it
    const cancel = await platform.cancel(body.taskId, 'queued-canceller');
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ taskId: body.taskId, state: 'CANCELLED', reason: 'cancelled by queued-canceller' });

    // Then, once quota is back (it meets the acceptance and the cancel in whichever order), nothing is charged
    await platform.startApp('quota');
    await expectCancelledAndFree(body.taskId, 'queued-canceller');
    expect((await platform.generation(body.taskId)).attempts).toEqual([]);
    const quota = await platform.quota('queued-canceller');
    expect(quota).toMatchObject({ balance: 5, refunded: quota.debited });
  });

  it('while the model hangs: the model request is aborted, the debit refunded', async () => {
    const { body } = await platform.submit('hang-canceller', { simulate: { hang: true } });
    await waitFor(async () => (await platform.generation(body.taskId)).status === 'running', { what: 'the model call to be under way' });

    const cancel = await platform.cancel(body.taskId, 'hang-canceller');
    expect(cancel.status).toBe(202);

    // The simulator saw the caller close the connection: generation aborted the HTTP request itself.
    await waitFor(async () => (await platform.abortedModelCalls()).includes(`${body.taskId}.1`), { what: 'the model call to be aborted' });
    await expectCancelledAndFree(body.taskId, 'hang-canceller');
    expect(await platform.quota('hang-canceller')).toMatchObject({ debited: 1, refunded: 1, balance: 5 });
    expect((await platform.generation(body.taskId)).attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'cancelled', errorCode: 'CANCELLED' })]);
  });

  it('while a retry waits: the retry never runs', async () => {
    const { body } = await platform.submit('retry-canceller', { simulate: { transientFailures: 3 } });
    await waitFor(async () => (await platform.task(body.taskId)).state === 'RETRYING', { what: 'the task to wait for its retry' });

    expect((await platform.cancel(body.taskId, 'retry-canceller')).status).toBe(202);

    await expectCancelledAndFree(body.taskId, 'retry-canceller');
    expect(await platform.quota('retry-canceller')).toMatchObject({ debited: 1, refunded: 1, balance: 5 });
    // Past the retry's time (4 s), no second attempt was made
    await sleep(5_000);
    expect((await platform.generation(body.taskId)).attempts).toHaveLength(1);
    expect(count(await platform.task(body.taskId), 'GenerationStarted')).toBe(1);
  });

  it('after success: 409 with the outcome, charged once, and the same key replays it', async () => {
    const { body } = await platform.submit('late-canceller', { text: 'done' });
    await platform.settled(body.taskId);

    const cancel = await platform.cancel(body.taskId, 'late-canceller', 'late-key');
    expect(cancel.status).toBe(409);
    expect(cancel.body).toMatchObject({ taskId: body.taskId, state: 'SUCCESS', reportRef: `/generations/${body.taskId}/report` });
    const again = await platform.cancel(body.taskId, 'late-canceller', 'late-key');
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(cancel.body);

    await platform.consumersCaughtUp();
    const task = await platform.task(body.taskId);
    expect(task.state).toBe('SUCCESS');
    expect(count(task, 'TaskCancelled')).toBe(0);
    expect(await platform.quota('late-canceller')).toMatchObject({ debited: 1, refunded: 0, balance: 4 });
    expect((await platform.notifications('late-canceller')).map((n) => n.outcome)).toEqual(['TaskCompleted']);
    expect(fs.existsSync(path.join(platform.reportsDir, `${body.taskId}.md`))).toBe(true);
  });

  it('two cancels with different keys at once: one takes effect, the other finds it ended', async () => {
    const { body } = await platform.submit('double-canceller', { simulate: { hang: true } });
    await waitFor(async () => (await platform.generation(body.taskId)).status === 'running', { what: 'the model call to be under way' });

    const answers = await Promise.all([platform.cancel(body.taskId, 'double-canceller', 'a'), platform.cancel(body.taskId, 'double-canceller', 'b')]);

    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toMatchObject({ state: 'CANCELLED' });
    await expectCancelledAndFree(body.taskId, 'double-canceller');
    expect(await platform.quota('double-canceller')).toMatchObject({ debited: 1, refunded: 1, balance: 5 });
  });

  it('only the owner or an admin cancels: a viewer is refused, another user finds nothing, a key serves one task', async () => {
    const { body } = await platform.submit('owner', { simulate: { hang: true } });
    const other = await platform.submit('owner', { simulate: { hang: true } });

    expect((await platform.cancel(body.taskId, 'owner', 'v', 'viewer')).status).toBe(403);
    expect((await platform.cancel(body.taskId, 'intruder')).status).toBe(404);
    expect((await platform.cancel(randomUUID(), 'owner')).status).toBe(404);
    const malformed = await platform.cancel('not-a-uuid', 'owner');
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain('taskId');
    expect((await platform.task(body.taskId)).state).not.toBe('CANCELLED');

    // An admin cancels it for the owner; the key the admin used cannot cancel another task
    const byAdmin = await platform.cancel(body.taskId, 'ops-admin', 'admin-key', 'admin');
    expect(byAdmin).toMatchObject({ status: 202, body: { state: 'CANCELLED', reason: 'cancelled by ops-admin' } });
    expect((await platform.cancel(other.body.taskId, 'ops-admin', 'admin-key', 'admin')).status).toBe(422);
    await expectCancelledAndFree(body.taskId, 'owner', 'ops-admin');
    expect((await platform.cancel(other.body.taskId, 'owner')).status).toBe(202);
  });
});
