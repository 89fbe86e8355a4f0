/**
 * What a replicated PostgreSQL (tools/stack/postgres-ha.ts) costs and keeps, in one run, on a pair of
 * its own (ports 35430–35452, under .stack/bench-postgres):
 * - the latency of a commit that waits for the synchronous standby, against the same commit acknowledged
 *   by the primary alone (`synchronous_commit = local`), interleaved in blocks on one connection;
 * - a failover: one writer commits row after row through HAProxy while the primary's node is killed
 *   with -9; the time from the first failed commit to the first commit on the new primary, and how
 *   many acknowledged rows the new primary lacks;
 * - the same failover with asynchronous replication and the standby held behind on purpose (the
 *   primary's WAL sender stopped for a few seconds before the kill): what an operator who turns synchronous
 *   replication off risks.
 * Run with `npm run bench:postgres-failover` (nothing else needed: it brings up and stops its own pair).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { createKnex } from '@app/database';
import { retry } from '@app/timing';
import { startPostgres, stopPostgres } from '../tools/stack/postgres';
import { postgresNodes, startPostgresNode } from '../tools/stack/postgres-ha';
import { holdBehind, killNode, leaderOf } from '../tools/chaos/database-faults';
import { loadStackConfig, StackConfig } from '../tools/stack/stack.config';
import { percentile, runBenchmark, writeResult } from './bench-support';

type Replication = StackConfig['postgresReplication'];
const commitsPerMode = Number(process.env.BENCH_COMMITS ?? 2000);

function pairConfig(replication: Replication): StackConfig {
  return loadStackConfig({
    ...process.env,
    STACK_DIR: path.join(__dirname, '..', '.stack', 'bench-postgres'),
    STACK_POSTGRES: 'replicated',
    STACK_POSTGRES_REPLICATION: replication,
    DATABASE_URL: 'postgres://postgres@127.0.0.1:35430/postgres',
  });
}

async function freshPair(config: StackConfig): Promise<Knex> {
  await stopPostgres(config);
  fs.rmSync(config.stackDir, { recursive: true, force: true });
  fs.rmSync(path.dirname(postgresNodes(config)[0].home), { recursive: true, force: true });
  await startPostgres(config);
  const db = createKnex(config.databaseUrl, 2, { quiet: true });
  await db.raw('create table if not exists acknowledged (id bigint primary key, at timestamptz default now())');
  await untilStandbyCaughtUp(db);
  return db;
}

/** The standby has replayed everything the primary wrote so far (the table included): what is lost later was lost in the failover. */
async function untilStandbyCaughtUp(db: Knex): Promise<void> {
  const caughtUp = async () => {
    const { rows } = await db.raw<{ rows: Array<{ behind: boolean }> }>('select replay_lsn < pg_current_wal_lsn() as behind from pg_stat_replication');
    return rows.length > 0 && rows.every((row) => !row.behind);
  };
  while (!(await caughtUp())) await sleep(200);
}

/** Commit latency, synchronous against local, blocks of 100 in turn so that both meet the same moments of the machine. */
async function commitLatency(db: Knex): Promise<Record<string, { p50: number; p99: number }>> {
  const samples: Record<'synchronous' | 'local', number[]> = { synchronous: [], local: [] };
  let id = 1_000_000;
  for (let block = 0; block < (2 * commitsPerMode) / 100; block++) {
    const mode = block % 2 === 0 ? 'synchronous' : 'local';
    for (let i = 0; i < 100; i++) {
      const started = process.hrtime.bigint();
      await db.transaction(async (trx) => {
        if (mode === 'local') await trx.raw('set local synchronous_commit = local');
        await trx('acknowledged').insert({ id: id++ });
      });
      samples[mode].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) };
  };
  return { synchronous: summary(samples.synchronous), local: summary(samples.local) };
}

/** One writer, a row at a time; the primary's node killed with -9 mid-stream (its standby first held behind, if asked). */
async function failover(config: StackConfig, db: Knex, holdStandbyMs: number) {
  await retry(() => db.raw('truncate acknowledged'), { attempts: 10, delayMs: () => 1000 });
  await untilStandbyCaughtUp(db);
  const acknowledged: number[] = [];
  let failedAt: number | undefined;
  let recoveredAt: number | undefined;
  let failures = 0;
  let writing = true;
  const writer = (async () => {
    for (let id = 1; writing; id++) {
      try {
        await db('acknowledged').insert({ id });
        acknowledged.push(id);
        if (failedAt !== undefined && recoveredAt === undefined) recoveredAt = Date.now();
      } catch (error) {
        // A primary that answers with an error of its own (the table itself lost) is back all the same.
        if (failedAt !== undefined && recoveredAt === undefined && (error as { code?: string }).code !== undefined) recoveredAt = Date.now();
        failures++;
        if (failures <= 3 || failures % 100 === 0) note(`commit ${id} failed (${failures}): ${(error as Error).message.split('\n')[0]}`);
        failedAt ??= Date.now();
        await sleep(50);
      }
    }
  })();
  await sleep(2000);
  const nodes = postgresNodes(config);
  const leading = await leaderOf(nodes);
  const leader = nodes.find((n) => n.name === leading?.name)!;
  const standby = nodes.find((n) => n !== leader)!;
  if (holdStandbyMs > 0) await holdBehind(leader, holdStandbyMs);
  const ackedBeforeKill = acknowledged.length;
  const killedAt = Date.now();
  note(`killing ${leader.name} (-9), ${acknowledged.length} commits acknowledged; ${standby.name} held behind for ${holdStandbyMs} ms`);
  await killNode(config, leader);
  while (recoveredAt === undefined && Date.now() - killedAt < 90_000) await sleep(100);
  const promoted = recoveredAt !== undefined;
  note(promoted ? `writes back after ${recoveredAt! - killedAt} ms` : 'no standby promoted within 90 s');
  // The old primary back: a standby of the new one (pg_rewind takes away what only it had), or, when
  // no standby was promoted (Patroni refuses one too far behind), the primary again.
  const rejoinStarted = Date.now();
  await startPostgresNode(config, leader, promoted ? 'replica' : 'primary');
  const rejoinMs = Date.now() - rejoinStarted;
  while (recoveredAt === undefined) await sleep(100);
  await sleep(1000);
  writing = false;
  await writer;
  // The pool's other connection went with the old primary: the first read may meet it.
  const ids = await retry(() => db('acknowledged').pluck('id'), { attempts: 10, delayMs: () => 1000 });
  const kept = new Set(ids.map(Number));
  const lost = acknowledged.filter((id) => !kept.has(id));
  return {
    standbyHeldMs: holdStandbyMs,
    standbyPromoted: promoted,
    acknowledgedBeforeKill: ackedBeforeKill,
    failedCommits: failures,
    firstFailedCommitAfterKillMs: failedAt === undefined ? null : failedAt - killedAt,
    writesBackMs: failedAt === undefined || recoveredAt === undefined ? null : recoveredAt - failedAt,
    acknowledgedLost: lost.length,
    lostIds: lost.slice(0, 10),
    oldPrimaryBackMs: rejoinMs,
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const note = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

runBenchmark(async () => {
  const result: Record<string, unknown> = { at: new Date().toISOString(), commitsPerMode };
  for (const replication of ['synchronous', 'asynchronous'] as const) {
    const config = pairConfig(replication);
    const db = await freshPair(config);
    try {
      if (replication === 'synchronous') result.commitLatencyMs = await commitLatency(db);
      result[`failover_${replication}`] = await failover(config, db, 0);
      // Held behind for a moment (less than Patroni's 1 MB of lag, past which it promotes no standby), then for longer.
      if (replication === 'asynchronous')
        for (const heldMs of [1000, 4000]) result[`failover_asynchronous_held_${heldMs}ms`] = await failover(config, db, heldMs);
    } finally {
      await db.destroy();
      await stopPostgres(config);
    }
  }
  writeResult('postgres-failover', result);
});
