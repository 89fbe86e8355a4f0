import * as fs from 'node:fs';
import * as path from 'node:path';
import { Platform } from '../support/platform';
import { JsonBody } from '../support/json-body';
import { asAdmin, authAs } from '../support/tokens';

const types = (task: JsonBody) => task.timeline.map((e: { eventType: string }) => e.eventType);

describe('each path of a report request, end to end', () => {
  const platform = new Platform({ DEFAULT_QUOTA: '2' });
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it('success: one debit, one report, one notification, in order', async () => {
    // When
    const { body } = await platform.submit('success-user', { text: 'numbers' });
    const task = await platform.settled(body.taskId);

    // Then
    expect(task).toMatchObject({ state: 'SUCCESS', attempts: 1, reason: null, reportRef: `/generations/${body.taskId}/report` });
    expect(types(task)).toEqual(['TaskAccepted', 'QuotaDebited', 'GenerationStarted', 'GenerationSucceeded', 'TaskCompleted', 'NotificationSent']);
    expect(await platform.quota('success-user')).toMatchObject({ balance: 1, debited: 1, refunded: 0 });
    // Stored sealed under the user's data key (docs/privacy.md): the file holds nothing of the report's text.
    const stored = fs.readFileSync(path.join(platform.reportsDir, `${body.taskId}.md`), 'utf8');
    expect(stored).toMatch(/^sealed:v1:/);
    expect(stored).not.toContain('numbers');
    // The report is fetched where reportRef points: by its owner and an admin, not by another user.
    const fetchReport = async (headers: Record<string, string>) => fetch(`${platform.url('generation')}${task.reportRef}`, { headers });
    const own = await fetchReport(await authAs('success-user'));
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toContain('text/markdown');
    expect(await own.text()).toContain('numbers');
    expect((await fetchReport(await asAdmin())).status).toBe(200);
    expect((await fetchReport(await authAs('someone-else'))).status).toBe(404);
    const notes = await platform.notifications('success-user');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ outcome: 'TaskCompleted', channel: 'inbox', status: 'delivered' });
  });

  it('transient then success: retried with backoff, charged once', async () => {
    const { body } = await platform.submit('transient-user', { simulate: { transientFailures: 2 } });
    const task = await platform.settled(body.taskId);

    expect(task).toMatchObject({ state: 'SUCCESS', attempts: 3 });
    expect(types(task)).toEqual([
      'TaskAccepted',
      'QuotaDebited',
      'GenerationStarted',
      'GenerationRetryScheduled',
      'GenerationStarted',
      'GenerationRetryScheduled',
      'GenerationStarted',
      'GenerationSucceeded',
      'TaskCompleted',
      'NotificationSent',
    ]);
    const retries = task.timeline.filter((e: { eventType: string }) => e.eventType === 'GenerationRetryScheduled');
    expect(retries.map((e: { data: { errorCode: string } }) => e.data.errorCode)).toEqual(['MODEL_UNAVAILABLE', 'MODEL_UNAVAILABLE']);
    expect(await platform.quota('transient-user')).toMatchObject({ balance: 1, debited: 1, refunded: 0 });
    const generation = await platform.generation(body.taskId);
    expect(generation.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retry', 'retry', 'succeeded']);
  });

  it('retries exhausted: failed, refunded once, told why', async () => {
    const { body } = await platform.submit('exhausted-user', { simulate: { transientFailures: 99 } });
    const task = await platform.settled(body.taskId);

    expect(task).toMatchObject({ state: 'COMPENSATED', attempts: 4, reason: 'gave up after 4 attempts: the model answered 503' });
    expect(types(task).slice(-5)).toEqual(['GenerationStarted', 'GenerationFailed', 'QuotaRefunded', 'TaskFailed', 'NotificationSent']);
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskFailed').data).toMatchObject({
      compensated: true,
      errorCode: 'MODEL_UNAVAILABLE',
    });
    expect(await platform.quota('exhausted-user')).toMatchObject({ balance: 2, debited: 1, refunded: 1 });
    const [note] = await platform.notifications('exhausted-user');
    expect(note.message).toBe('Your report could not be produced: gave up after 4 attempts: the model answered 503. The quota it used has been refunded.');
    expect(fs.readdirSync(path.join(platform.reportsDir, 'tmp')).filter((f) => f.startsWith(body.taskId))).toEqual([]);
  });

  it('permanent failure: never retried, refunded once', async () => {
    const { body } = await platform.submit('permanent-user', { simulate: { permanentFailure: true } });
    const task = await platform.settled(body.taskId);

    expect(task).toMatchObject({ state: 'COMPENSATED', attempts: 1 });
    expect(types(task)).toEqual(['TaskAccepted', 'QuotaDebited', 'GenerationStarted', 'GenerationFailed', 'QuotaRefunded', 'TaskFailed', 'NotificationSent']);
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'GenerationFailed').data).toMatchObject({
      errorClass: 'PERMANENT',
      errorCode: 'MODEL_REJECTED',
    });
    expect(await platform.quota('permanent-user')).toMatchObject({ balance: 2, debited: 1, refunded: 1 });
    const report = await fetch(`${platform.url('generation')}/generations/${body.taskId}/report`, { headers: await authAs('permanent-user') });
    expect(report.status).toBe(404);
    expect(await report.text()).toContain('its generation is failed');
  });

  it('a model that hangs: each attempt times out and is cancelled, then the task is compensated', async () => {
    const { body } = await platform.submit('hang-user', { simulate: { hang: true } });
    const task = await platform.settled(body.taskId);

    expect(task).toMatchObject({ state: 'COMPENSATED', attempts: 4, reason: 'gave up after 4 attempts: the model did not answer in time' });
    const cancelled = await platform.cancellations();
    expect([1, 2, 3, 4].every((attempt) => cancelled.includes(`${body.taskId}.${attempt}`))).toBe(true);
    expect(await platform.quota('hang-user')).toMatchObject({ balance: 2, debited: 1, refunded: 1 });
  });

  it('quota rejected: a refusal, nothing to compensate, the user told', async () => {
    // Given a user whose two units of quota are spent
    for (const i of [1, 2]) await platform.settled((await platform.submit('poor-user', { i })).body.taskId);

    // When a third report is asked for
    const { body } = await platform.submit('poor-user', { i: 3 });
    const task = await platform.settled(body.taskId);

    // Then
    expect(task).toMatchObject({ state: 'FAILED', attempts: 0, reason: 'not enough quota (balance 0)' });
    expect(types(task)).toEqual(['TaskAccepted', 'QuotaRejected', 'TaskFailed', 'NotificationSent']);
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskFailed').data).toMatchObject({
      compensated: false,
      errorCode: 'INSUFFICIENT_QUOTA',
    });
    expect(await platform.quota('poor-user')).toMatchObject({ balance: 0, debited: 2, refunded: 0 });
    expect(await platform.notifications('poor-user')).toHaveLength(3);
    // and generation, told of the refusal, closed the job without calling the model
    expect(await platform.generation(body.taskId)).toMatchObject({ status: 'refused', attempts: [] });
  });
});
