import { registryJar } from './artifacts';
import { databaseUrlFor, jdbcUrl } from './postgres';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { registryUrl, StackConfig } from './stack.config';
import { findJava } from './toolchain';

export function registryProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'registry');
}

export async function registryAnswers(config: StackConfig): Promise<boolean> {
  try {
    const response = await fetch(`${registryUrl(config)}/subjects`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Apicurio Registry 3 with its SQL storage in PostgreSQL, serving the Confluent-compatible API.
 * The global compatibility rule is BACKWARD, the same rule the producers' schemas are written for.
 */
export async function startRegistry(config: StackConfig): Promise<'started' | 'already up'> {
  const proc = registryProcess(config);
  const existing = runningPid(proc);
  let outcome: 'started' | 'already up' = 'already up';
  if (existing !== undefined) {
    await waitUntilReady(proc, existing, () => registryAnswers(config), 120_000);
  } else {
    const database = new URL(databaseUrlFor(config, config.registry.database));
    const env = {
      ...process.env,
      APICURIO_STORAGE_KIND: 'sql',
      APICURIO_STORAGE_SQL_KIND: 'postgresql',
      APICURIO_DATASOURCE_URL: jdbcUrl(database),
      APICURIO_DATASOURCE_USERNAME: decodeURIComponent(database.username || 'postgres'),
      APICURIO_DATASOURCE_PASSWORD: decodeURIComponent(database.password),
      QUARKUS_HTTP_HOST: config.registry.host,
      QUARKUS_HTTP_PORT: String(config.registry.port),
      QUARKUS_MANAGEMENT_HOST: config.registry.host,
      QUARKUS_MANAGEMENT_PORT: String(config.registry.managementPort),
    };
    const heap = config.registry.heap;
    const pid = startDetached(proc, findJava(21), [`-Xms${heap}`, `-Xmx${heap}`, '-jar', registryJar(config)], { env });
    await waitUntilReady(proc, pid, () => registryAnswers(config), 120_000);
    outcome = 'started';
  }
  await setGlobalCompatibility(config, 'BACKWARD');
  return outcome;
}

async function setGlobalCompatibility(config: StackConfig, compatibility: string): Promise<void> {
  const response = await fetch(`${registryUrl(config)}/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ compatibility }),
  });
  if (!response.ok) {
    throw new StackError('registry', `setting global compatibility failed: ${response.status} ${await response.text()}`);
  }
}

export function stopRegistry(config: StackConfig): Promise<boolean> {
  return stopManaged(registryProcess(config));
}
