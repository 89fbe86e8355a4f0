import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createKnex, databaseAnswers, ensureDatabase } from '@app/database';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { StackConfig } from './stack.config';

export function postgresProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'postgres');
}

export function databaseUrlFor(config: StackConfig, database: string): string {
  const url = new URL(config.databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export function jdbcUrl(url: URL): string {
  return `jdbc:postgresql://${url.hostname}:${url.port || 5432}${url.pathname}`;
}

export async function postgresAnswers(url: string): Promise<boolean> {
  const db = createKnex(url, 1, { quiet: true });
  try {
    return await databaseAnswers(db);
  } finally {
    await db.destroy();
  }
}

/**
 * Uses the server at DATABASE_URL when it answers. Otherwise, when that URL points at this machine,
 * makes a private cluster with Debian's initdb under the stack folder and serves it on that port.
 */
export async function startPostgres(config: StackConfig): Promise<'external' | 'started' | 'already up'> {
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
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname)) {
    throw new StackError('postgres', `DATABASE_URL ${redact(url)} does not answer and is not on this machine`);
  }
  const pid = startPrivateCluster(config, proc, Number(url.port || 5432), decodeURIComponent(url.username || 'postgres'));
  await waitUntilReady(proc, pid, () => postgresAnswers(config.databaseUrl), 60_000);
  await ensureDatabases(config);
  return 'started';
}

const asPostgres = () => (process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []);

/**
 * Where the private cluster keeps its data: under the stack folder, unless the cluster runs as the
 * postgres user (we are root) and that user cannot reach the folder (a checkout under a private
 * directory, such as one made by mktemp): then in a folder of its own under the system's tmp.
 */
export function postgresDataDir(config: StackConfig): string {
  const inStack = path.join(config.stackDir, 'data', 'postgres');
  if (asPostgres().length === 0) return inStack;
  fs.mkdirSync(config.stackDir, { recursive: true });
  const [cmd, ...args] = [...asPostgres(), 'test', '-x', config.stackDir];
  if (spawnSync(cmd, args).status === 0) return inStack;
  return path.join(os.tmpdir(), `task-platform-postgres-${createHash('sha256').update(config.stackDir).digest('hex').slice(0, 12)}`);
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

/** The newest installed PostgreSQL's programs (initdb, postgres, pgbench). */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin')).find((dir) => fs.existsSync(path.join(dir, 'initdb')));
  if (!found) throw new StackError('postgres', 'DATABASE_URL does not answer and no initdb was found: apt-get install postgresql');
  return found;
}

/** One database per service plus one for the registry, created when missing. */
async function ensureDatabases(config: StackConfig): Promise<void> {
  for (const name of [config.registry.database, ...config.serviceDatabases]) {
    await ensureDatabase(databaseUrlFor(config, name));
  }
}

export function stopPostgres(config: StackConfig): Promise<boolean> {
  return stopManaged(postgresProcess(config));
}

function redact(url: URL): string {
  const copy = new URL(url.toString());
  if (copy.password) copy.password = '***';
  return copy.toString();
}
