import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createKnex, databaseAnswers } from '@app/database';
import { withDeadline } from '@app/timing';
import { StackError } from './processes';
import { StackConfig } from './stack.config';

/** What both layouts of the stack's PostgreSQL (one server, or a replicated pair) need. */

export function databaseUrlFor(config: StackConfig, database: string): string {
  const url = new URL(config.databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function postgresAnswers(url: string): Promise<boolean> {
  const db = createKnex(url, 1, { quiet: true });
  try {
    return await databaseAnswers(db);
  } finally {
    await db.destroy();
  }
}

/** The server at `url` answers and takes writes (is no standby): what a replicated database's address must reach. */
export async function primaryAnswers(url: string): Promise<boolean> {
  const db = createKnex(url, 1, { quiet: true });
  try {
    const { rows } = await withDeadline(db.raw<{ rows: Array<{ standby: boolean }> }>('select pg_is_in_recovery() as standby'), 2000, 'the primary answering');
    return rows[0]?.standby === false;
  } catch {
    return false;
  } finally {
    await db.destroy();
  }
}

/** PostgreSQL refuses to run as root: as root, its programs (and Patroni) run as the postgres user. */
export const asPostgres = (): string[] => (process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []);

/**
 * Where a cluster of the stack keeps its data: under the stack folder, unless it runs as the
 * postgres user (we are root) and that user cannot reach the folder (a checkout under a private
 * directory, such as one made by mktemp): then in a folder of its own under the system's tmp.
 */
export function postgresHome(config: StackConfig, name = 'postgres'): string {
  const inStack = path.join(config.stackDir, 'data', name);
  if (asPostgres().length === 0) return inStack;
  fs.mkdirSync(config.stackDir, { recursive: true });
  const [cmd, ...args] = [...asPostgres(), 'test', '-x', config.stackDir];
  if (spawnSync(cmd, args).status === 0) return inStack;
  const tag = createHash('sha256').update(config.stackDir).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `task-platform-${name}-${tag}`);
}

/** The newest installed PostgreSQL's programs (initdb, postgres, pg_rewind, pgbench). */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin')).find((dir) => fs.existsSync(path.join(dir, 'initdb')));
  if (!found) throw new StackError('postgres', 'DATABASE_URL does not answer and no initdb was found: apt-get install postgresql');
  return found;
}

export function redact(url: URL): string {
  const copy = new URL(url.toString());
  if (copy.password) copy.password = '***';
  return copy.toString();
}

export function isLocalHost(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
}
