import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAlive, managed, portIsOpen, runningPid, sleep, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { asPostgres, isLocalHost, primaryAnswers, postgresBinDir, postgresHome } from './postgres-server';
import { patroniConfig, PostgresNode, proxyConfig } from './postgres-ha.config';

export type { PostgresNode } from './postgres-ha.config';
import { postgresLayoutFile, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

/**
 * A replicated PostgreSQL, as operators run one: two nodes of Debian's PostgreSQL, each under
 * Patroni, which keeps the leader's lease in etcd (its v3 API), promotes the synchronous standby
 * when the primary is lost, and brings the old primary back with pg_rewind; HAProxy listens on
 * DATABASE_URL's address and sends every connection to the node whose Patroni says it is primary.
 * The binaries run directly (the Debian packages' service scripts assume systemd).
 *
 * Addresses, from DATABASE_URL's port P (HAProxy's): the nodes' PostgreSQL on P+1 and P+2, their
 * Patroni REST APIs on P+11 and P+12, etcd's clients on P+21 and its peer on P+22.
 */

export const clusterName = 'taskplatform';

function proxyPort(config: StackConfig): number {
  return Number(new URL(config.databaseUrl).port || 5432);
}

export function postgresNodes(config: StackConfig): PostgresNode[] {
  const root = postgresHome(config, 'postgres-replicated');
  return [1, 2].map((id) => {
    const home = path.join(root, `node-${id}`);
    return {
      name: `node-${id}`,
      port: proxyPort(config) + id,
      restPort: proxyPort(config) + 10 + id,
      home,
      dataDir: path.join(home, 'data'),
      configFile: path.join(home, 'patroni.yml'),
    };
  });
}

export function etcdAddresses(config: StackConfig): { client: string; peer: string } {
  return { client: `127.0.0.1:${proxyPort(config) + 21}`, peer: `127.0.0.1:${proxyPort(config) + 22}` };
}

export const proxyProcess = (config: StackConfig) => managed(config.runDir, config.logsDir, 'postgres-proxy');
export const etcdProcess = (config: StackConfig) => managed(config.runDir, config.logsDir, 'postgres-etcd');
export const nodeProcess = (config: StackConfig, node: PostgresNode) => managed(config.runDir, config.logsDir, `postgres-${node.name}`);

/** etcd, both nodes (the first bootstraps the cluster, the second is copied from it) and HAProxy; a part already running is kept. */
export async function startReplicatedPostgres(config: StackConfig): Promise<'started' | 'already up'> {
  const url = new URL(config.databaseUrl);
  if (!isLocalHost(url)) throw new StackError('postgres', 'a replicated PostgreSQL is the stack’s own: DATABASE_URL must point at this machine');
  const parts = [etcdProcess(config), ...postgresNodes(config).map((n) => nodeProcess(config, n)), proxyProcess(config)];
  if (parts.every((part) => runningPid(part) !== undefined)) {
    await waitUntilReady(proxyProcess(config), runningPid(proxyProcess(config))!, () => proxyReachesPrimary(config), 90_000);
    return 'already up';
  }
  if (runningPid(proxyProcess(config)) === undefined && (await portIsOpen(url.hostname, proxyPort(config)))) {
    throw new StackError('postgres', `port ${proxyPort(config)} is taken by a process the stack did not start; set DATABASE_URL to a free port`);
  }
  // The nodes' folder first: etcd would make the data folder above it reachable by root alone.
  fs.mkdirSync(path.dirname(path.dirname(postgresNodes(config)[0].home)), { recursive: true });
  for (const node of postgresNodes(config)) fs.mkdirSync(node.home, { recursive: true, mode: 0o700 });
  await startEtcd(config);
  const [first, second] = postgresNodes(config);
  const standby = config.postgresReplication === 'synchronous' ? 'sync' : 'replica';
  if (!fs.existsSync(path.join(first.dataDir, 'PG_VERSION'))) {
    // A new cluster: the first node bootstraps it, the second is copied from it.
    await startPostgresNode(config, first, 'primary');
    await startPostgresNode(config, second, standby);
  } else {
    // An existing one: either node may have led last, and only one Patroni knows it may lead again.
    for (const node of [first, second]) await startPostgresNode(config, node, 'running');
    await waitUntilReady(nodeProcess(config, first), runningPid(nodeProcess(config, first))!, () => leaderAndStandby(config, standby), 180_000);
  }
  const proxy = proxyProcess(config);
  const proxyFile = path.join(config.runDir, 'postgres-proxy.cfg');
  fs.writeFileSync(
    proxyFile,
    proxyConfig(
      `127.0.0.1:${proxyPort(config)}`,
      postgresNodes(config).map((node) => ({ ...node, host: '127.0.0.1' })),
    ),
  );
  const pid = runningPid(proxy) ?? startDetached(proxy, requireCommand('haproxy', 'haproxy'), ['-db', '-f', proxyFile]);
  await waitUntilReady(proxy, pid, () => proxyReachesPrimary(config), 60_000);
  fs.writeFileSync(postgresLayoutFile(config.stackDir), 'replicated');
  return 'started';
}

/** One node answers as primary and the other as `standby`. */
async function leaderAndStandby(config: StackConfig, standby: 'sync' | 'replica'): Promise<boolean> {
  const [first, second] = postgresNodes(config);
  const as = (node: PostgresNode, role: string) => restAnswers(`http://127.0.0.1:${node.restPort}/${role}`);
  return ((await as(first, 'primary')) && (await as(second, standby))) || ((await as(second, 'primary')) && (await as(first, standby)));
}

/**
 * Several connections in a row reach the primary: HAProxy takes a server for up until its first
 * checks fail, so a fresh proxy sends every other connection to the standby for a second or two.
 */
async function proxyReachesPrimary(config: StackConfig): Promise<boolean> {
  for (let i = 0; i < 4; i++) if (!(await primaryAnswers(config.databaseUrl))) return false;
  return true;
}

async function startEtcd(config: StackConfig): Promise<void> {
  const proc = etcdProcess(config);
  const { client, peer } = etcdAddresses(config);
  const pid =
    runningPid(proc) ??
    startDetached(proc, requireCommand('etcd', 'etcd-server'), [
      '--name=patroni-dcs',
      `--data-dir=${path.join(config.stackDir, 'data', 'postgres-etcd')}`,
      `--listen-client-urls=http://${client}`,
      `--advertise-client-urls=http://${client}`,
      `--listen-peer-urls=http://${peer}`,
      `--initial-advertise-peer-urls=http://${peer}`,
      `--initial-cluster=patroni-dcs=http://${peer}`,
      // One member elects no one; the slack is for a disk or CPU starved by three brokers beside it.
      '--heartbeat-interval=250',
      '--election-timeout=5000',
      '--enable-v2=false',
    ]);
  await waitUntilReady(proc, pid, () => restAnswers(`http://${client}/health`, '"health":"true"'), 30_000);
}

/**
 * One node's Patroni, started (its configuration written afresh) unless running, and waited for
 * until it serves in `role`: `primary` (it bootstrapped or leads), `sync` (the synchronous standby),
 * `replica` (streaming, synchronous or not yet), or not at all (`running`: started, nothing awaited).
 */
export async function startPostgresNode(config: StackConfig, node: PostgresNode, role: 'primary' | 'sync' | 'replica' | 'running'): Promise<void> {
  const proc = nodeProcess(config, node);
  let pid = runningPid(proc);
  if (pid === undefined) {
    const patroni = requireCommand('patroni', 'patroni');
    fs.mkdirSync(node.home, { recursive: true, mode: 0o700 });
    fs.writeFileSync(node.configFile, patroniConfig(config, node, etcdAddresses(config).client, postgresBinDir()), { mode: 0o600 });
    if (asPostgres().length) execFileSync('chown', ['-R', 'postgres', path.dirname(node.home)]);
    const [command, ...args] = [...asPostgres(), patroni, node.configFile];
    pid = startDetached(proc, command, args);
  }
  if (role === 'running') return;
  await waitUntilReady(proc, pid, () => restAnswers(`http://127.0.0.1:${node.restPort}/${role}`), 180_000);
}

/** Replicas first (a primary stopped first would be failed over to them), then the rest, then etcd. */
export async function stopReplicatedPostgres(config: StackConfig): Promise<boolean> {
  const proxy = await stopManaged(proxyProcess(config));
  const nodes = postgresNodes(config);
  const roles = await Promise.all(nodes.map((node) => restAnswers(`http://127.0.0.1:${node.restPort}/primary`)));
  let stopped = proxy;
  for (const node of [...nodes.filter((_, i) => !roles[i]), ...nodes.filter((_, i) => roles[i])]) {
    stopped = (await stopManaged(nodeProcess(config, node), 60_000)) || stopped;
    await stopOrphanedPostmaster(node);
  }
  stopped = (await stopManaged(etcdProcess(config))) || stopped;
  fs.rmSync(postgresLayoutFile(config.stackDir), { force: true });
  return stopped;
}

/** Patroni starts PostgreSQL in a session of its own, so that it outlives Patroni: a node killed hard leaves it behind. */
export function postmasterPid(node: PostgresNode): number | undefined {
  const file = path.join(node.dataDir, 'postmaster.pid');
  if (!fs.existsSync(file)) return undefined;
  const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/** A PostgreSQL whose Patroni is gone: stopped fast (SIGINT), then at once (SIGQUIT). */
export async function stopOrphanedPostmaster(node: PostgresNode): Promise<void> {
  for (const signal of ['SIGINT', 'SIGQUIT', 'SIGKILL'] as const) {
    const pid = postmasterPid(node);
    if (pid === undefined) return;
    process.kill(pid, signal);
    for (let waited = 0; waited < 10_000 && postmasterPid(node) === pid; waited += 100) await sleep(100);
  }
}

/** A node's Patroni REST API as its view of the cluster: members, their roles and timelines. */
export interface PatroniMember {
  name: string;
  role: string;
  state: string;
  timeline?: number;
}

export async function clusterMembers(node: PostgresNode): Promise<PatroniMember[]> {
  const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(3000) });
  if (!response.ok) throw new Error(`${node.name}'s Patroni answered ${response.status}`);
  return ((await response.json()) as { members: PatroniMember[] }).members;
}

export async function restAnswers(url: string, body?: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return response.ok && (body === undefined || (await response.text()).includes(body));
  } catch {
    return false;
  }
}
