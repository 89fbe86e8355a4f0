import { zipkinJar } from './artifacts';
import { managed, ManagedProcess, runningPid, startDetached, stopManaged, waitUntilReady } from './processes';
import { StackConfig, zipkinUrl } from './stack.config';
import { findJava } from './toolchain';

export function zipkinProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'zipkin');
}

export async function zipkinAnswers(config: StackConfig): Promise<boolean> {
  try {
    const response = await fetch(`${zipkinUrl(config)}/health`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * The local trace store: Zipkin keeping spans in memory (bounded), on loopback only. `npm start`
 * exports the services' traces to it; a production deployment points OTEL_* at its own collector.
 */
export async function startZipkin(config: StackConfig): Promise<'started' | 'already up'> {
  const proc = zipkinProcess(config);
  const existing = runningPid(proc);
  if (existing !== undefined) {
    await waitUntilReady(proc, existing, () => zipkinAnswers(config), 90_000);
    return 'already up';
  }
  const env = { ...process.env, STORAGE_TYPE: 'mem', MEM_MAX_SPANS: '50000', QUERY_PORT: String(config.zipkin.port), COLLECTOR_ACTIVITY: 'false' };
  const heap = config.zipkin.heap;
  const args = [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-jar',
    zipkinJar(config),
    `--armeria.ports[0].ip=${config.zipkin.host}`,
    `--armeria.ports[0].port=${config.zipkin.port}`,
    '--armeria.ports[0].protocols=http',
  ];
  const pid = startDetached(proc, findJava(17), args, { env });
  await waitUntilReady(proc, pid, () => zipkinAnswers(config), 90_000);
  return 'started';
}

export function stopZipkin(config: StackConfig): Promise<boolean> {
  return stopManaged(zipkinProcess(config));
}
