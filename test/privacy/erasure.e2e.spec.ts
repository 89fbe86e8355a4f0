import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { defaults } from '@app/config';
import { newEvent } from '@app/events';
import { EventCodec, localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { loadStackConfig, zipkinUrl } from '../../tools/stack/stack.config';
import { Platform } from '../support/platform';
import { asAdmin, authAs } from '../support/tokens';
import { waitFor } from '../support/wait-for';
import { JsonBody } from '../support/json-body';
import { everyStore, storesHolding } from './store-search';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..');
const zipkin = zipkinUrl(loadStackConfig());

/** Outside requests are kept 40 s in this world, so that the test sees them go (seven days by default). */
const requestRetentionMs = 40_000;

/**
 * A user's personal data, planted as a canary in every way it can enter, found nowhere but where it
 * is allowed before the erasure, and nowhere at all once the erasure and the outside requests'
 * retention have passed — searched in the raw bytes of every store.
 */
describe('erasing a user', () => {
  const platform = new Platform({}, requestRetentionMs);
  const started = Date.now();
  const canary = `canary-${randomBytes(6).toString('hex')}`;
  const otherCanary = `kept-${randomBytes(6).toString('hex')}`;
  const user = `external:forgotten-${randomBytes(3).toString('hex')}`;
  const allowedBeforeRetention = ['topic task-requested', 'topic tasks.dlq'];
  /** The user's webhook receiver, on a URL whose path and query hold the canary (as a receiver's token might). */
  const hooksReceived: string[] = [];
  const receiver = http.createServer((request, response) => {
    hooksReceived.push(String(request.headers['webhook-id']));
    response.end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    await platform.start();
  });
  afterAll(async () => {
    await platform.stop();
    receiver.close();
  });

  async function publishOutside(value: Buffer, taskId: string): Promise<void> {
    const producer = platform.kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: `${platform.env.topicPrefix}task-requested`, acks: -1, messages: [{ key: taskId, value }] });
    } finally {
      await producer.disconnect();
    }
  }

  async function erase(userId: string, key: string) {
    const response = await fetch(`${platform.url('tasks')}/users/${userId}/data`, {
      method: 'DELETE',
      headers: { 'idempotency-key': key, ...(await asAdmin()) },
    });
    return { status: response.status, location: response.headers.get('location'), body: (await response.json()) as JsonBody };
  }

  async function report(taskId: string, userId: string) {
    const response = await fetch(`${platform.url('generation')}/generations/${taskId}/report`, { headers: await authAs(userId) });
    return { status: response.status, text: await response.text() };
  }

  it('leaves no trace of their inputs and reports in any store, keeps the facts, and leaves other users whole', async () => {
    // Given the canary entering by a webhook's URL, by POST /tasks (to success and to failure), by an outside TaskRequested, and in a poison request
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${canary}?token=${canary}`;
    const registered = await fetch(`${platform.url('notification')}/users/${user}/webhook`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(await authAs(user)) },
      body: JSON.stringify({ url: hookUrl }),
    });
    expect(registered.status).toBeLessThan(300);
    const succeeded = (await platform.submit(user, { text: canary })).body.taskId as string;
    const failed = (await platform.submit(user, { text: canary, simulate: { permanentFailure: true } })).body.taskId as string;
    const outside = randomUUID();
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    const origin = { taskId: outside, userId: user, correlationId: randomUUID(), causationId: null };
    await publishOutside(
      await codec.encode(
        newEvent('TaskRequested', { idempotencyKey: 'outside-1', reportType: 'summary', input: JSON.stringify({ text: canary }) }, origin, 'partner'),
      ),
      outside,
    );
    await publishOutside(Buffer.from(`not an event: ${canary}`), randomUUID());
    const kept = (await platform.submit('kept-user', { text: otherCanary })).body.taskId as string;
    for (const taskId of [succeeded, failed, outside, kept]) await platform.settled(taskId);
    expect((await platform.task(failed)).state).toBe('COMPENSATED');
    const reportText = (await report(succeeded, user)).text;
    expect(reportText).toContain(canary); // the simulator's report quotes the input
    const outsideReport = (await report(outside, user)).text;
    await waitFor(async () => (await platform.get('tasks', '/tasks?userId=*&limit=100')).items.length === 4, { what: 'the four tasks listed' });
    await waitFor(() => hooksReceived.length >= 3, { what: 'the three outcomes delivered to the webhook' });
    await platform.consumersCaughtUp();

    // Then before the erasure (the services' spans exported): in clear only on the outside requests' topic and tasks' dead letters (bounded retention)
    const before = await waitFor(
      async () => {
        const stores = await everyStore(platform, zipkin, started);
        return ['traces tasks', 'traces generation', 'traces notification'].every((store) => storesHolding(stores, succeeded).includes(store)) && stores;
      },
      { what: 'the spans of the tasks in the trace store', timeoutMs: 30_000, intervalMs: 1_000 },
    );
    // (and the webhook's URL only in notification's database: no span or log of a delivery names it)
    expect(storesHolding(before, canary).sort()).toEqual([...allowedBeforeRetention, 'database notification'].sort());
    expect(storesHolding(before, reportText)).toEqual([]);
    expect(storesHolding(before, outsideReport)).toEqual([]);
    // (the search reads every store: each holds what it should, the user's id and tasks, and each log its service's lines)
    for (const store of ['database tasks', 'database quota', 'database generation', 'database notification', 'topic task-accepted']) {
      expect(storesHolding(before, user)).toContain(store);
    }
    expect(before.map((s) => s.store)).toContain(`reports ${succeeded}.md`);
    expect(storesHolding(before, 'schemas found')).toEqual(['log generation', 'log notification', 'log quota', 'log tasks']);
    expect((await platform.task(succeeded)).input).toEqual({ text: canary });

    // When an admin erases the user (a viewer or the user cannot)
    expect(
      (await fetch(`${platform.url('tasks')}/users/${user}/data`, { method: 'DELETE', headers: { 'idempotency-key': 'e0', ...(await authAs(user)) } })).status,
    ).toBe(403);
    const erasure = await erase(user, 'erase-1');
    expect(erasure).toMatchObject({ status: 202, location: `/users/${encodeURIComponent(user)}/data`, body: { userId: user, status: 'ERASING' } });
    expect((await erase(user, 'erase-1')).body.erasureId).toBe(erasure.body.erasureId); // the same key replays
    const done = await waitFor(
      async () => {
        const status = await platform.get('tasks', `/users/${user}/data`);
        return status.status === 'ERASED' && status;
      },
      { what: 'every service to answer the erasure' },
    );
    expect(Object.keys(done.services).sort()).toEqual(['generation', 'notification', 'quota', 'tasks']);

    // Then the facts stay and the content reads [erased]
    const task = await platform.task(succeeded);
    expect(task).toMatchObject({ state: 'SUCCESS', userId: user, input: '[erased]' });
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskAccepted').data.input).toBe('[erased]');
    expect((await platform.task(outside)).input).toBe('[erased]');
    expect((await report(succeeded, user)).status).toBe(404);
    expect(await platform.quota(user)).toMatchObject({ debited: 3, refunded: 1 });
    // Another user's data stays readable
    expect((await platform.task(kept)).input).toEqual({ text: otherCanary });
    expect((await report(kept, 'kept-user')).text).toContain(otherCanary);

    // And nothing holds the canary in clear but the outside requests, until their retention passes
    await platform.consumersCaughtUp();
    const after = await everyStore(platform, zipkin, started);
    expect(storesHolding(after, canary).filter((store) => !allowedBeforeRetention.includes(store))).toEqual([]);
    expect(storesHolding(after, reportText)).toEqual([]);
    expect(storesHolding(after, otherCanary)).toEqual([]); // sealed too, though kept
    expect(storesHolding(after, `reports ${succeeded}.md`)).toEqual([]);
    await waitFor(async () => storesHolding(await everyStore(platform, zipkin, started), canary).length === 0, {
      what: 'the outside requests to age out',
      timeoutMs: requestRetentionMs + 60_000,
      intervalMs: 5_000,
    });

    // And the audit of the topics still holds every invariant
    const { stdout } = await run(process.execPath, ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', 'tools/audit/cli.ts', '--json'], {
      cwd: root,
      env: { ...process.env, ...platform.env.serviceEnv('tasks'), ...localKafkaEnv('auditor'), ...localRegistryEnv('auditor'), TS_NODE_TRANSPILE_ONLY: 'true' },
    });
    expect(JSON.parse(stdout)).toMatchObject({ violations: [] });
  }, 240_000);
});
