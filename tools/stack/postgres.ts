import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureDatabase } from '@app/database';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { asPostgres, databaseUrlFor, isLocalHost, postgresAnswers, postgresBinDir, postgresHome, redact } from './postgres-server';
import { proxyProcess, startReplicatedPostgres, stopReplicatedPostgres } from './postgres-ha';
import { StackConfig } from './stack.config';

export { databaseUrlFor, postgresAnswers, postgresBinDir } from './postgres-server';

/** The process that owns DATABASE_URL's address: the server, or a replicated pair's HAProxy. */
export function postgresProcess(config: StackConfig): ManagedProcess {
  if (config.postgres === 'replicated') return proxyProcess(config);
  return managed(config.runDir, config.logsDir, 'postgres');
}

export function jdbcUrl(url: URL): string {
  return `jdbc:postgresql://${url.hostname}:${url.port || 5432}${url.pathname}`;
}

/**
 * Uses the server at DATABASE_URL when it answers. Otherwise, when that URL points at this machine,
 * makes a private cluster with Debian's initdb under the stack folder and serves it on that port.
 * A replicated layout is always the stack's own (postgres-ha.ts).
 */
export async function startPostgres(config: StackConfig): Promise<'external' | 'started' | 'already up'> {
  if (config.postgres === 'replicated') {
    const started = await startReplicatedPostgres(config);
    await ensureDatabases(config);
    return started;
  }
  const proc = postgresProcess(config);
  const existing = runningPid(proc);
  if (existing !== undefined) {
    await waitUntilReady(proc, existing, () => postgresAnswers(config.databaseUrl), 30_000);
    await ensureDatabases(config);
    return 'already up';
  }
  if (await postgresAnswers(config.databaseUrl)) {
    await ensureDatabases(config);
    return 'external';
  }
  const url = new URL(config.databaseUrl);
  if (!isLocalHost(url)) {
    throw new StackError('postgres', `DATABASE_URL ${redact(url)} does not answer and is not on this machine`);
  }
  const pid = startPrivateCluster(config, proc, Number(url.port || 5432), decodeURIComponent(url.username || 'postgres'));
  await waitUntilReady(proc, pid, () => postgresAnswers(config.databaseUrl), 60_000);
  await ensureDatabases(config);
  return 'started';
}

/** The single server's data folder. */
export function postgresDataDir(config: StackConfig): string {
  return postgresHome(config, 'postgres');
}

function startPrivateCluster(config: StackConfig, proc: ManagedProcess, port: number, superuser: string): number {
  const bin = postgresBinDir();
  const dataDir = postgresDataDir(config);
  const asPostgresUser = asPostgres();
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (asPostgresUser.length) execFileSync('chown', ['-R', 'postgres', dataDir]);
    const [cmd, ...args] = [...asPostgresUser, path.join(bin, 'initdb'), '-D', dataDir, '-A', 'trust', '-U', superuser];
    try {
      execFileSync(cmd, args, { stdio: 'pipe' });
    } catch (error) {
      const said = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
      throw new StackError('postgres', `initdb could not make a cluster in ${dataDir} (the postgres user must be able to reach it): ${said}`);
    }
  }
  const [cmd, ...args] = [...asPostgresUser, path.join(bin, 'postgres'), '-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', dataDir];
  return startDetached(proc, cmd, args);
}

/** One database per service plus one for the registry, created when missing. */
async function ensureDatabases(config: StackConfig): Promise<void> {
  for (const name of [config.registry.database, ...config.serviceDatabases]) {
    await ensureDatabase(databaseUrlFor(config, name));
  }
}

export function stopPostgres(config: StackConfig): Promise<boolean> {
  if (config.postgres === 'replicated') return stopReplicatedPostgres(config);
  return stopManaged(postgresProcess(config));
}
