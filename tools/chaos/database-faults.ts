import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import {
  clusterMembers,
  nodeProcess,
  PatroniMember,
  PostgresNode,
  postgresNodes,
  postmasterPid,
  restAnswers,
  startPostgresNode,
  stopOrphanedPostmaster,
} from '../stack/postgres-ha';
import { isAlive, runningPid, sleep } from '../stack/processes';
import type { StackConfig } from '../stack/stack.config';
import type { Strike } from './strike';
import type { Random } from './random';
import type { Evidence } from './checked-evidence';

/** The faults only a replicated database can have. */
export type DatabaseFaultKind = 'failover-postgres' | 'switchover-postgres';

export const databaseFaultKinds: DatabaseFaultKind[] = ['failover-postgres', 'switchover-postgres'];

/**
 * A fault of the replicated database (tools/stack/postgres-ha.ts), and its effect as Patroni reports
 * it on a node that was not struck: another node leads, on a newer timeline.
 * - failover-postgres: the primary's node (Patroni and PostgreSQL) killed with -9, as a host lost. The
 *   standby is promoted once the leader's lease runs out; healing starts the node again, and it
 *   rejoins as the standby (pg_rewind takes back what it wrote alone).
 * - switchover-postgres: the planned hand-over an upgrade makes, asked of the leader's Patroni.
 */
export async function strikeDatabase(kind: DatabaseFaultKind, stack: StackConfig, random: Random): Promise<Strike | undefined> {
  const struckAt = Date.now();
  const nodes = postgresNodes(stack);
  const before = await leaderOf(nodes);
  const leader = nodes.find((n) => n.name === before?.name);
  if (!before || !leader) return undefined;
  const other = nodes.find((n) => n !== leader)!;
  const effect = async () => {
    const now = await leaderOf([other, leader]);
    return now && now.name !== before.name && (now.timeline ?? 0) > (before.timeline ?? 0)
      ? `${now.name} leads on timeline ${now.timeline}, instead of ${before.name} on ${before.timeline}`
      : undefined;
  };
  const rejoined = () => untilReplica(stack, leader, other);
  if (kind === 'switchover-postgres') {
    const response = await fetch(`http://127.0.0.1:${leader.restPort}/switchover`, {
      method: 'POST',
      body: JSON.stringify({ leader: leader.name, candidate: other.name }),
      signal: AbortSignal.timeout(60_000),
    });
    const said = (await response.text()).trim();
    if (!response.ok) throw new Error(`switchover refused by ${leader.name}: ${response.status} ${said}`);
    return { target: leader.name, detail: `switchover to ${other.name} (${said})`, forMs: random.between(10, 20) * 1000, heal: rejoined, effect, struckAt };
  }
  // Past the lease (ttl 30 s) and Patroni's next loop (10 s), so that the standby is promoted before it heals.
  const forMs = random.between(45, 60) * 1000;
  // Replicated asynchronously, the standby is held behind a moment first: what such a setup risks (docs/reliability.md).
  const behind = stack.postgresReplication === 'asynchronous' ? await holdBehind(leader, 3000) : undefined;
  // Not frozen with SIGSTOP instead: a primary let go on after its lease ran out took the lock back from
  // the promoted standby in a run (Patroni's watchdog, which this machine lacks, is what prevents that).
  await killNode(stack, leader);
  const detail = `kill -9 of Patroni and PostgreSQL${behind ? `, ${other.name} held ${behind.heldMs} ms behind` : ''}`;
  return { target: leader.name, detail, forMs, heal: rejoined, effect, struckAt };
}

/**
 * The primary's WAL senders stopped for `ms`: its standby falls behind by what is committed meanwhile.
 * (Stopping the standby's receiver would not do: what the sender already wrote waits in the socket's
 * buffers, and the receiver reads it all once it goes on, primary dead or not.)
 */
export async function holdBehind(primary: PostgresNode, ms: number): Promise<{ heldMs: number } | undefined> {
  const postmaster = postmasterPid(primary);
  const senders = postmaster === undefined ? [] : childrenOf(postmaster).filter((pid) => commandOf(pid).includes('walsender'));
  if (senders.length === 0) return undefined;
  for (const sender of senders) signalQuietly(sender, 'SIGSTOP');
  await sleep(ms);
  // Never let go on here: the primary is killed next, its senders with it.
  return { heldMs: ms };
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The leader as the first node that answers sees it. */
export async function leaderOf(nodes: PostgresNode[]): Promise<PatroniMember | undefined> {
  for (const node of nodes) {
    try {
      return (await clusterMembers(node)).find((m) => m.role === 'leader' && m.state === 'running');
    } catch {
      // struck or restarting: ask the next
    }
  }
  return undefined;
}

export async function killNode(stack: StackConfig, node: PostgresNode): Promise<void> {
  const postmaster = postmasterPid(node);
  signalNode(stack, node, 'SIGKILL');
  while (runningPid(nodeProcess(stack, node)) !== undefined || (postmaster !== undefined && isAlive(postmaster))) await sleep(100);
  await stopOrphanedPostmaster(node);
}

/** Every promotion the replicated database has made, as its leader's Patroni keeps them. */
export async function promotions(stack: StackConfig): Promise<NonNullable<Evidence['promotions']>> {
  for (const node of postgresNodes(stack)) {
    try {
      const response = await fetch(`http://127.0.0.1:${node.restPort}/history`, { signal: AbortSignal.timeout(3000) });
      if (!response.ok) continue;
      // Each line: [the timeline it ended, the LSN it ended at, why, when the next began, who led it].
      const lines = (await response.json()) as Array<[number, number, string, string, string]>;
      return lines.map(([ended, , , at, leader]) => ({ timeline: ended + 1, at, leader }));
    } catch {
      // restarting: ask the other
    }
  }
  throw new Error('no Patroni answered GET /history');
}

/** The primary's PostgreSQL stopped at once (SIGQUIT, as crash-postgres does to a single server); Patroni, still running, starts it again. */
export async function crashPrimary(stack: StackConfig): Promise<void> {
  const nodes = postgresNodes(stack);
  const leading = await leaderOf(nodes);
  const leader = nodes.find((n) => n.name === leading?.name);
  const postmaster = leader && postmasterPid(leader);
  if (postmaster === undefined) return;
  signalQuietly(postmaster, 'SIGQUIT');
  while (isAlive(postmaster)) await sleep(100);
}

/**
 * Signals Patroni's process group, and PostgreSQL: its postmaster and each of its children, which
 * are sessions of their own (every backend calls setsid), so no group signal reaches them all.
 */
function signalNode(stack: StackConfig, node: PostgresNode, signal: NodeJS.Signals): string[] {
  const signalled: string[] = [];
  const patroni = runningPid(nodeProcess(stack, node));
  if (patroni !== undefined) {
    signalQuietly(-patroni, signal);
    signalled.push('Patroni');
  }
  const postmaster = postmasterPid(node);
  if (postmaster !== undefined) {
    // The children first, so that none is left running while the postmaster already waits.
    for (const child of childrenOf(postmaster)) signalQuietly(child, signal);
    signalQuietly(postmaster, signal);
    signalled.push('PostgreSQL');
  }
  return signalled;
}

function childrenOf(pid: number): number[] {
  const listed = spawnSync('ps', ['--ppid', String(pid), '-o', 'pid='], { encoding: 'utf8' }).stdout ?? '';
  return listed
    .split('\n')
    .map(Number)
    .filter((child) => Number.isInteger(child) && child > 0);
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

/**
 * Until the struck node streams from the new primary again (it may rewind first), as its synchronous
 * standby if the mode is synchronous — or, healed before its lease ran out (a run that ended just
 * after the strike), until it leads again with `other` as that standby: the pair is whole either way.
 */
async function untilReplica(stack: StackConfig, node: PostgresNode, other: PostgresNode): Promise<void> {
  const deadline = Date.now() + 180_000;
  const role = stack.postgresReplication === 'synchronous' ? 'sync' : 'replica';
  const whole = async () =>
    (await restAnswers(`http://127.0.0.1:${node.restPort}/${role}`)) ||
    ((await restAnswers(`http://127.0.0.1:${node.restPort}/primary`)) && (await restAnswers(`http://127.0.0.1:${other.restPort}/${role}`)));
  while (!(await whole())) {
    if (Date.now() > deadline) throw new Error(`${node.name} did not rejoin as a standby within 180 s`);
    if (runningPid(nodeProcess(stack, node)) === undefined) await startPostgresNode(stack, node, 'replica');
    await sleep(1000);
  }
}
