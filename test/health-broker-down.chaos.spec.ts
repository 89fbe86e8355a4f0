import { serviceNames } from '@app/config';
import { healthStatus, RunningService } from '../tools/run/service-process';
import { startKafka, stopKafka } from '../tools/stack/kafka';
import { loadStackConfig } from '../tools/stack/stack.config';
import { startServices, stopServices } from './support/services';
import { TestEnv } from './support/test-env';
import { waitFor } from './support/wait-for';

describe('health when the broker goes away', () => {
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

  it('turns every /health to 503 while Kafka is stopped, and back to 200 once it is started again', async () => {
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

    // When the broker is started again
    await startKafka(stack);

    // Then each service is healthy again, without a restart
    for (const s of services) {
      await waitFor(async () => (await healthStatus(s.port)) === 200, { what: `${s.name} /health 200`, timeoutMs: 30_000 });
    }
    expect(services.every((s) => s.child.exitCode === null)).toBe(true);
  });
});
