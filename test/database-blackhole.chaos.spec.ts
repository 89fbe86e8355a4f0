import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { healthStatus } from '../tools/run/service-process';
import { Platform } from './support/platform';
import { SilentProxy } from './support/silent-proxy';
import { waitFor } from './support/wait-for';

/** How long a GET /health took to answer, and with what. */
async function timedHealth(port: number): Promise<{ status?: number; ms: number }> {
  const started = Date.now();
  const status = await healthStatus(port);
  return { status, ms: Date.now() - started };
}

/**
 * A database that falls silent — no reset, no answer, as behind a network that drops its packets —
 * is noticed within seconds and survived: /health never hangs and says so, the work in flight
 * waits, and the service recovers by itself once the database answers again.
 */
describe('a PostgreSQL that falls silent for twenty seconds', () => {
  const platform = new Platform({ MODEL_TIMEOUT: '5s' }); // room for the two-second model call below
  let proxy: SilentProxy;
  beforeAll(async () => {
    await platform.start();
    const server = new URL(platform.env.serverUrl);
    proxy = await new SilentProxy(server.hostname, Number(server.port || 5432)).start();
    // The tasks service reaches its database through the proxy, with short statements so a silent one shows soon
    const through = new URL(platform.env.databaseUrl('tasks'));
    through.host = `127.0.0.1:${proxy.port}`;
    await platform.kill('tasks');
    await platform.startApp('tasks', undefined, { TASKS_DATABASE_URL: through.toString(), DB_STATEMENT_TIMEOUT: '3s', DB_CONNECT_TIMEOUT: '2s' });
  });
  afterAll(async () => {
    proxy?.heal();
    await platform.stop();
    await proxy?.stop();
  });

  it('answers /health at once with 503 while silent, keeps the task in flight waiting, and completes it without a restart once healed', async () => {
    const tasks = platform.service('tasks');
    const { body } = await platform.submit('blackhole-before');
    expect(await platform.settled(body.taskId)).toMatchObject({ state: 'SUCCESS' });

    // Given a task in flight (its model call takes two seconds)
    const inFlight = (await platform.submit('blackhole-user', { simulate: { latencyMs: 2000 } })).body;
    await waitFor(async () => (await platform.generation(inFlight.taskId)).status === 'running', { what: 'the model call to start' });

    // When the database falls silent
    proxy.silence();
    const silentAt = Date.now();

    // Then /health says so within seconds, and every check answers promptly however long it lasts
    const checks: Array<{ status?: number; ms: number }> = [];
    await waitFor(async () => (checks.push(await timedHealth(tasks.port)), checks.at(-1)!.status === 503), { what: '/health to say 503', timeoutMs: 15_000 });
    const detectedMs = Date.now() - silentAt;
    while (Date.now() - silentAt < 20_000) {
      checks.push(await timedHealth(tasks.port));
      await sleep(1000);
    }
    expect(checks.slice(-5).map((c) => c.status)).toEqual([503, 503, 503, 503, 503]);
    expect(Math.max(...checks.map((c) => c.ms))).toBeLessThan(4000);
    // And the task in flight has not finished though its report is made: tasks cannot record it (read past the proxy)
    expect((await platform.generation(inFlight.taskId)).status).toBe('succeeded');
    const direct = new Client({ connectionString: platform.env.databaseUrl('tasks') });
    await direct.connect();
    const { rows } = await direct.query<{ state: string }>('select state from tasks where task_id = $1', [inFlight.taskId]).finally(() => direct.end());
    expect(rows[0].state).not.toBe('SUCCESS');

    // When the database answers again
    proxy.heal();
    const healedAt = Date.now();

    // Then the same process recovers by itself, and the task completes once
    await waitFor(async () => (await healthStatus(tasks.port)) === 200, { what: '/health to recover', timeoutMs: 60_000 });
    const recoveredMs = Date.now() - healedAt;
    const task = await platform.settled(inFlight.taskId, 90_000);
    expect(task).toMatchObject({ state: 'SUCCESS' });
    expect(task.timeline.filter((e: { eventType: string }) => e.eventType === 'TaskCompleted')).toHaveLength(1);
    expect(tasks.child.exitCode).toBeNull();
    expect(await platform.quota('blackhole-user')).toMatchObject({ debited: 1, refunded: 0 });
    // And the silence was waited out as an outage: never an attempt of the handler, never a dead letter
    const metrics = await (await fetch(`${platform.url('tasks')}/metrics`)).text();
    expect(metrics).toMatch(/^retries_total\{[^}]*kind="outage"[^}]*\} [1-9]/m);
    expect(metrics).not.toMatch(/^retries_total\{[^}]*kind="consumer"[^}]*\} [1-9]/m);
    expect(metrics).not.toMatch(/^dlq_messages_total\{/m);
    process.stdout.write(
      `database blackhole: detected in ${detectedMs} ms, slowest /health ${Math.max(...checks.map((c) => c.ms))} ms, recovered ${recoveredMs} ms after healing\n`,
    );
  });
});
