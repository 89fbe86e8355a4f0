import { ServiceName, serviceNames } from '@app/config';
import { RunningService, startService, stopService, waitForHealth } from '../../tools/run/service-process';
import { TestEnv } from './test-env';
import { freePort } from './unique';

/** Starts built services (dist/) in the test's own world and waits until each is healthy. */
export async function startServices(env: TestEnv, names: readonly ServiceName[] = serviceNames): Promise<RunningService[]> {
  const services: RunningService[] = [];
  await env.provision();
  for (const name of names) services.push(startService(name, await freePort(), env.serviceEnv(name)));
  try {
    await Promise.all(services.map((s) => waitForHealth(s)));
  } catch (error) {
    await stopServices(services);
    throw error;
  }
  return services;
}

export async function stopServices(services: RunningService[]): Promise<void> {
  await Promise.all(services.map((s) => stopService(s)));
}
