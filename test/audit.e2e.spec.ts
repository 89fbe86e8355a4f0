import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { defaults } from '@app/config';
import { newEvent } from '@app/events';
import { EventCodec, localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { Platform } from './support/platform';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');

describe('npm run audit', () => {
  const platform = new Platform();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  /** Runs the audit CLI over this test's topics; resolves with its exit code and output. */
  async function auditCli(...args: string[]): Promise<{ code: number; stdout: string }> {
    try {
      const { stdout } = await run(process.execPath, ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', 'tools/audit/cli.ts', ...args], {
        cwd: root,
        // The audit reads as the auditor; the tasks service's database is where --rebuild compares.
        env: {
          ...process.env,
          ...platform.env.serviceEnv('tasks'),
          ...localKafkaEnv('auditor'),
          ...localRegistryEnv('auditor'),
          TS_NODE_TRANSPILE_ONLY: 'true',
        },
      });
      return { code: 0, stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      if (typeof failed.code !== 'number') throw error;
      return { code: failed.code, stdout: failed.stdout + failed.stderr };
    }
  }

  it('exits 0 after a clean run, and 1 naming the task once a refund without a debit is published', async () => {
    // Given finished tasks down several paths
    const ids = [];
    for (const input of [{}, { simulate: { transientFailures: 1 } }, { simulate: { permanentFailure: true } }]) {
      ids.push((await platform.submit('audited', input)).body.taskId as string);
    }
    for (const id of ids) await platform.settled(id);

    // Then the audit finds every invariant holding
    const clean = await auditCli('--json');
    expect(clean.code).toBe(0);
    const report = JSON.parse(clean.stdout);
    expect(report).toMatchObject({ tasks: 3, violations: [], inFlight: [] });

    // And the tasks service's table matches the projection rebuilt from the topics
    const rebuilt = await auditCli('--rebuild');
    expect(rebuilt).toMatchObject({ code: 0, stdout: expect.stringContaining('the projection matches the topics') });

    // When a QuotaRefunded for a task that was never debited is published straight to Kafka
    const stray = newEvent(
      'QuotaRefunded',
      { amount: 1, balanceAfter: 11 },
      { taskId: randomUUID(), userId: 'audited', correlationId: randomUUID(), causationId: null },
      'intruder',
    );
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    const producer = platform.kafka.producer();
    await producer.connect();
    await producer.send({ topic: codec.topicFor('QuotaRefunded'), acks: -1, messages: [{ key: stray.taskId, value: await codec.encode(stray) }] });
    await producer.disconnect();

    // Then the audit exits 1 and names that task and event
    const broken = await auditCli();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`VIOLATION NO_REFUND_WITHOUT_DEBIT ${stray.taskId}: task was refunded but never debited (events ${stray.eventId})`);

    // And one task's timeline can be printed
    const timeline = await auditCli('--task', ids[0]);
    expect(timeline.code).toBe(0);
    expect(
      timeline.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+/)[1]),
    ).toEqual(['TaskAccepted', 'QuotaDebited', 'GenerationStarted', 'GenerationSucceeded', 'TaskCompleted', 'NotificationSent']);
  });

  it('names a task whose stored state differs from the state rebuilt from the topics', async () => {
    const { taskId } = (await platform.submit('tampered', {})).body;
    await platform.settled(taskId);
    const { createKnex } = await import('@app/database');
    const db = createKnex(platform.env.databaseUrl('tasks'), 1);
    await db('tasks').where({ task_id: taskId }).update({ state: 'RUNNING' });
    await db.destroy();
    const rebuilt = await auditCli('--rebuild');
    expect(rebuilt.code).toBe(1);
    expect(rebuilt.stdout).toContain(`DIFFERENCE ${taskId}: topics SUCCESS/1, database RUNNING/1`);
  });

  it('exits 2 with a message for an argument it cannot read', async () => {
    const wrong = await auditCli('--from', 'yesterday-ish');
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toContain('"yesterday-ish" is not a date or time (ISO 8601)');
  });
});
