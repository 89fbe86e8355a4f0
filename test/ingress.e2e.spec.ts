import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { Platform } from './support/platform';
import { JsonBody } from './support/json-body';
import { PartnerClient } from './support/partner';
import { uniqueSuffix } from './support/unique';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');

describe('another system publishing TaskRequested and consuming the outcome', () => {
  const platform = new Platform();
  // The outside system is a partner: its own principal and topics, its users `<partner>:<id>`
  let partner: PartnerClient;
  const user = (id: string) => `${partner.name}:${id}`;
  beforeAll(async () => {
    partner = await PartnerClient.add(`px${uniqueSuffix()}`, platform.env.topicPrefix);
    await platform.start();
  });
  afterAll(async () => {
    await partner?.remove();
    await platform.stop();
  });

  /** The example client, with no code of this project: publishes one request, prints its outcome. */
  async function exampleClient(args: string[]): Promise<JsonBody> {
    const { stdout } = await run(process.execPath, ['-r', 'ts-node/register', 'examples/request-report.ts', ...args], {
      cwd: root,
      env: {
        ...process.env,
        ...localKafkaEnv(partner.principal),
        ...localRegistryEnv(partner.principal),
        TOPIC_PREFIX: platform.env.topicPrefix,
        PARTNER: partner.name,
        TS_NODE_TRANSPILE_ONLY: 'true',
      },
      timeout: 90_000,
    });
    return JSON.parse(stdout);
  }

  it('completes an outside request once, however often it is published, and rejects a reused key', async () => {
    // When the outside system requests a report
    const taskId = randomUUID();
    const outcome = await exampleClient(['--user', user('partner'), '--key', 'order-1', '--input', '{"text":"Q3"}', '--task-id', taskId]);

    // Then it receives TaskCompleted for its task, which the platform adopted and charged once
    expect(outcome).toMatchObject({ eventType: 'TaskCompleted', taskId, userId: user('partner') });
    const task = await platform.settled(taskId);
    expect(task.timeline.map((e: { eventType: string; producer: string }) => `${e.eventType}/${e.producer}`).slice(0, 3)).toEqual([
      'TaskRequested/example-producer',
      'TaskAccepted/tasks',
      'QuotaDebited/quota',
    ]);

    // When the very same request (same taskId) is published again
    const again = await exampleClient(['--user', user('partner'), '--key', 'order-1', '--input', '{"text":"Q3"}', '--task-id', taskId]);
    // Then the answer is the same task's outcome, and nothing new happened
    expect(again).toMatchObject({ eventType: 'TaskCompleted', taskId });

    // When the same request comes under another taskId
    const duplicate = await exampleClient(['--user', user('partner'), '--key', 'order-1', '--input', '{"text":"Q3"}']);
    expect(duplicate).toMatchObject({ eventType: 'TaskRejected', reason: 'DUPLICATE', idempotencyKey: 'order-1' });

    // When the key is reused with other content
    const reused = await exampleClient(['--user', user('partner'), '--key', 'order-1', '--input', '{"text":"Q4"}']);
    expect(reused).toMatchObject({ eventType: 'TaskRejected', reason: 'KEY_REUSED', idempotencyKey: 'order-1' });

    // Then only one task exists for the partner, and it was charged once
    await platform.consumersCaughtUp();
    const tasks = await platform.get<{ items: Array<{ taskId: string }> }>('tasks', `/tasks?userId=${user('partner')}`);
    expect(tasks.items.map((t) => t.taskId)).toEqual([taskId]);
    expect(await platform.quota(user('partner'))).toMatchObject({ debited: 1, balance: 9 });
  });

  it('rejects an outside request whose input is not a JSON object', async () => {
    const outcome = await exampleClient(['--user', user('partner-2'), '--key', 'bad-1', '--input', 'not json']);
    expect(outcome).toMatchObject({ eventType: 'TaskRejected', reason: 'INVALID_INPUT' });
    expect(await platform.quota(user('partner-2'))).toMatchObject({ debited: 0 });
  });

  it.each([
    ['deeper than 32 levels', `${'{"a":'.repeat(39)}{}${'}'.repeat(39)}`, 'INPUT_TOO_DEEP'],
    ['holding a lone surrogate', '{"s":"\\ud800"}', 'UNSTORABLE_TEXT'],
    ['of more than 10,000 values', JSON.stringify({ rows: Array.from({ length: 10_000 }, () => 0) }), 'INPUT_TOO_LARGE'],
  ])('rejects an outside request whose input is %s, as POST /tasks would refuse it', async (_, input, reason) => {
    const limited = user(`partner-${reason.toLowerCase()}`);
    const outcome = await exampleClient(['--user', limited, '--key', `limits-${reason}`, '--input', input]);
    expect(outcome).toMatchObject({ eventType: 'TaskRejected', reason });
    await platform.consumersCaughtUp();
    expect(await platform.quota(limited)).toMatchObject({ debited: 0 });
  });

  it('cancels a task from outside: it fails as CANCELLED, charged nothing; another user’s cancel and a late one are refused', async () => {
    // Given a task waiting for its debit (quota is down)
    await platform.kill('quota');
    const { body } = await platform.submit(user('partner-c'), { text: 'stop me' });

    // When the outside system cancels it for its user
    const cancelled = await exampleClient(['--user', user('partner-c'), '--cancel', body.taskId]);

    // Then the task's outcome is TaskFailed{CANCELLED}, and once quota is back nothing is charged
    expect(cancelled).toMatchObject({ eventType: 'TaskFailed', taskId: body.taskId, errorCode: 'CANCELLED', compensated: true });
    await platform.startApp('quota');
    expect(await platform.settled(body.taskId)).toMatchObject({ state: 'CANCELLED', reason: `cancelled by ${user('partner-c')}` });
    await platform.consumersCaughtUp();
    const quota = await platform.quota(user('partner-c'));
    expect(quota).toMatchObject({ balance: 10, refunded: quota.debited });

    // Given a task that completed
    const done = (await platform.submit(user('partner-c'), { text: 'keep me' })).body.taskId as string;
    await platform.settled(done);
    const timelineBefore = (await platform.task(done)).timeline.length;

    // When another user cancels it: refused as unknown, and nothing of the task is touched
    expect(await exampleClient(['--user', user('intruder'), '--cancel', done])).toMatchObject({
      eventType: 'TaskCancelRejected',
      reason: 'UNKNOWN_TASK',
      state: null,
    });
    await platform.consumersCaughtUp();
    expect((await platform.task(done)).timeline).toHaveLength(timelineBefore);

    // When its own user cancels it: refused, the outcome stands, charged once
    expect(await exampleClient(['--user', user('partner-c'), '--cancel', done])).toMatchObject({
      eventType: 'TaskCancelRejected',
      reason: 'ALREADY_ENDED',
      state: 'SUCCESS',
    });
    const task = await platform.task(done);
    expect(task.state).toBe('SUCCESS');
    expect(task.timeline.map((e: { eventType: string }) => e.eventType)).toContain('TaskCancelRejected');
    expect(await platform.quota(user('partner-c'))).toMatchObject({ balance: 9 });
  });
});
