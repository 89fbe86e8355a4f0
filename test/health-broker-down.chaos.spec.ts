import { serviceNames } from '@app/config';
import { healthStatus, RunningService } from '../tools/run/service-process';
import { startKafka, stopKafka } from '../tools/stack/kafka';
import { loadStackConfig } from '../tools/stack/stack.config';
import { startServices, stopServices } from './support/services';
import { TestEnv } from './support/test-env';
import { authAs } from './support/tokens';
import { waitFor } from './support/wait-for';
import { setTimeout as sleep } from 'node:timers/promises';

/** A gauge's value on one service's GET /metrics. */
async function gauge(service: RunningService, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`${service.name} has no ${name}`);
  return Number(line.slice(name.length + 1));
}

describe('health and the outbox when the broker goes away', () => {
  const env = new TestEnv();
  const stack = loadStackConfig();
  let services: RunningService[] = [];

  beforeAll(async () => {
    services = await startServices(env);
  });

  afterAll(async () => {
    await startKafka(stack); // whatever happened, leave the broker running for what comes next
    await stopServices(services);
    await env.dropDatabases(serviceNames);
  });

  it('turns every /health to 503 while Kafka is stopped, keeps an accepted task in the outbox with its age rising, and recovers once Kafka is back', async () => {
    // Given all four healthy
    for (const s of services) expect(await healthStatus(s.port)).toBe(200);

    // When the broker is really stopped
    expect(await stopKafka(stack)).toBe(true);

    // Then each service reports 503, naming Kafka as down and its database as up
    for (const s of services) {
      await waitFor(async () => (await healthStatus(s.port)) === 503, { what: `${s.name} /health 503`, timeoutMs: 20_000 });
      const body = await (await fetch(`http://127.0.0.1:${s.port}/health`)).json();
      expect(body).toMatchObject({ status: 'error', details: { kafka: { status: 'down' }, postgres: { status: 'up' } } });
    }

    // And a task accepted meanwhile waits in the outbox, its age rising where an alert can see it
    const tasks = services.find((s) => s.name === 'tasks')!;
    const accepted = await fetch(`http://127.0.0.1:${tasks.port}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `broker-down-${Date.now()}`, ...(await authAs('broker-down')) },
      body: JSON.stringify({ reportType: 'summary', input: {} }),
    });
    expect(accepted.status).toBe(202);
    expect(await gauge(tasks, 'outbox_pending')).toBeGreaterThanOrEqual(1);
    const firstAge = await gauge(tasks, 'outbox_oldest_age_seconds');
    await sleep(3000);
    const laterAge = await gauge(tasks, 'outbox_oldest_age_seconds');
    expect(laterAge).toBeGreaterThanOrEqual(firstAge + 2);

    // When the broker is started again
    await startKafka(stack);

    // Then each service is healthy again, without a restart. Its consumers join their groups again,
    // and a restarted coordinator may first wait for members it remembers from before the stop, up to
    // kafkajs's rebalance timeout (60 s): on a loaded CI machine one service once took longer than 30 s.
    for (const s of services) {
      await waitFor(async () => (await healthStatus(s.port)) === 200, { what: `${s.name} /health 200`, timeoutMs: 90_000 });
    }
    // And the outbox drains: nothing waits any more
    await waitFor(async () => (await gauge(tasks, 'outbox_pending')) === 0 && (await gauge(tasks, 'outbox_oldest_age_seconds')) === 0, {
      what: "tasks' outbox to drain",
      timeoutMs: 30_000,
    });
    expect(services.every((s) => s.child.exitCode === null)).toBe(true);
  });
});
