import { Client } from 'pg';
import { deadLetterTopicFor } from '@app/catalogue';
import { Platform } from '../support/platform';
import { waitFor } from '../support/wait-for';

/**
 * Before: quota's database read-only for 15 s (SQLSTATE 25006, what a failover looks like to a
 * client) dead-lettered every TaskRequested after three quick attempts, and the tasks stayed QUEUED
 * for good. Now the consumer waits the failover out.
 */
describe("a failover of quota's database while tasks arrive", () => {
  const platform = new Platform();
  let server: Client;
  const quotaDatabase = () => new URL(platform.env.databaseUrl('quota')).pathname.slice(1);
  const tasksDatabase = () => new URL(platform.env.databaseUrl('tasks')).pathname.slice(1);
  const endQuotaSessions = () =>
    server.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [quotaDatabase()]);

  beforeAll(async () => {
    await platform.start();
    server = new Client({ connectionString: platform.env.serverUrl });
    await server.connect();
  });
  afterAll(async () => {
    await server.query(`alter database "${quotaDatabase()}" reset default_transaction_read_only`).catch(() => undefined);
    await server.query(`alter database "${tasksDatabase()}" reset default_transaction_read_only`).catch(() => undefined);
    await server.end();
    await platform.stop();
  });

  it('holds five requests through the read-only spell, then completes each, charged once, with no dead letter', async () => {
    // Given quota's database turned read-only, as a primary that failed over is to its clients
    await server.query(`alter database "${quotaDatabase()}" set default_transaction_read_only = on`);
    await endQuotaSessions();

    // When five tasks are submitted
    const taskIds: string[] = [];
    for (let i = 0; i < 5; i++) taskIds.push((await platform.submit('failover-user', { n: i })).body.taskId);

    // Then quota meets the read-only database, and the tasks wait
    const quota = platform.service('quota');
    await waitFor(() => (quota.output().match(/read-only transaction/g) ?? []).length >= 12, {
      what: 'quota to meet the read-only database a dozen times',
      timeoutMs: 60_000,
    });
    for (const taskId of taskIds) expect((await platform.task(taskId)).state).toBe('QUEUED');

    // When the database is writable again (the new primary took over)
    await server.query(`alter database "${quotaDatabase()}" reset default_transaction_read_only`);
    await endQuotaSessions();

    // Then every task completes, the user is charged once per task, and quota dead-lettered nothing
    for (const taskId of taskIds) expect(await platform.settled(taskId, 90_000)).toMatchObject({ state: 'SUCCESS' });
    expect(await platform.quota('failover-user')).toMatchObject({ debited: 5, refunded: 0 });
    const admin = platform.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(deadLetterTopicFor(`${platform.env.topicPrefix}quota`));
      expect(offsets.reduce((sum, p) => sum + Number(p.high), 0)).toBe(0);
    } finally {
      await admin.disconnect();
    }
  });

  it('answers POST /tasks with 503 and Retry-After while its own database is read-only, then takes the same request', async () => {
    // Given the tasks service's database turned read-only, its sessions ended
    await server.query(`alter database "${tasksDatabase()}" set default_transaction_read_only = on`);
    await server.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [tasksDatabase()]);

    // When a task is submitted, then the answer says to come back, and reveals nothing of the cause
    const refused = await platform.submit('failover-client', { n: 1 }, 'same-key');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.detail).not.toMatch(/read-only|transaction|postgres/i);

    // When the database is writable again, then the same request is taken and completes
    await server.query(`alter database "${tasksDatabase()}" reset default_transaction_read_only`);
    await server.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [tasksDatabase()]);
    const taken = await waitFor(
      async () => {
        const answer = await platform.submit('failover-client', { n: 1 }, 'same-key');
        return answer.status === 202 && answer;
      },
      { what: 'the request to be taken', timeoutMs: 30_000 },
    );
    expect(await platform.settled(taken.body.taskId, 60_000)).toMatchObject({ state: 'SUCCESS' });
  });
});
