/**
 * Tasks per second at saturation, against the limits of the machine measured in the same run.
 *
 * - saturation: N tasks (BENCH_TASKS, 1,000) from 200 users submitted at once, from the first
 *   POST to the last TaskCompleted; then the same with one message in ten of every topic sent
 *   again byte for byte by a separate producer;
 * - latency at half of saturation: POST → TaskCompleted appended, and each event's relay lag,
 *   against the target 4 × (h × a bare Kafka hop's p99 + t × the event transaction's p99);
 * - cost: CPU seconds per task of every process, peak RSS of each service;
 * - twenty users: the same N tasks from 20 of those users (submissions must scale with concurrency,
 *   not with users: tasks/s ÷ the 200 users' and the POSTs' p50/p99);
 * - one user: the same N tasks as a single user at the same concurrency (an outside system behind
 *   one account submits like this), with the open-task cap raised for the whole run to let it: how
 *   fast POST /tasks accepts them, its p99, and tasks/s to the last TaskCompleted;
 * - limits: L_db (event transactions/s ÷ transactions per task) and L_kafka (raw kafkajs pipe
 *   messages/s ÷ messages per task), and efficiency = tasks/s ÷ min(L_db, L_kafka).
 *
 * - the peer: the same flow as DBOS Transact workflow steps (bench/peers/dbos) on the same server and
 *   simulator, the same tasks, users and concurrency, then at our half-load rate; ours ÷ peer.
 *
 * A first saturation, not counted, warms the platform and the peer up. Every phase starts on an
 * idle platform (each ends once every consumer caught up); the steady
 * load lasts BENCH_STEADY_SECONDS (60); the whole round, ours and the peer's, runs BENCH_RUNS times
 * (3) and the result is each figure's median, beside every round's.
 *
 * Run with `npm run bench:throughput` (the stack must be up; it builds the services); `-- --no-peer`
 * skips the peer; BENCH_PROFILE=<dir> to profile the services; BENCH_NODE_FLAGS to run them with other
 * node flags (after their own: V8 takes a flag's last value).
 */
import * as os from 'node:os';
import { Logger } from '@nestjs/common';
import { defaults, serviceNames } from '@app/config';
import { createKnex, dropDatabase, ensureDatabase, migrateToLatest } from '@app/database';
import { allMessagingMigrations } from '@app/messaging';
import { EventCodec } from '@app/kafka';
import { Platform } from '@test/platform';
import { tokenFor } from '@test/tokens';
import { serviceNodeFlags } from '../tools/run/service-process';
import { benchSettings, kafkaHop, percentile, runBenchmark, writeResult } from './bench-support';
import { readCounters, roundTrips } from './throughput/counters';
import { saturationWithDuplicates } from './throughput/duplicator';
import { criticalPath, eventTransactionsPerSecond, kafkaPipePerSecond, latencyTargetMs, perTask } from './throughput/limits';
import { mediansOf } from './throughput/medians';
import { OutcomeWatcher } from './throughput/outcome-watcher';
import { Peer, PeerFigures } from './throughput/peer';
import { stackCostMeter } from './throughput/process-cost';
import { fewUsers, inFlight, openTaskCap, saturation, singleUser, steadyLoad, users } from './throughput/submissions';

Logger.overrideLogger(['error']);
const tasksPerRun = Number(process.env.BENCH_TASKS ?? 1000);
const rounds = Number(process.env.BENCH_RUNS ?? 3);
const steadySeconds = Number(process.env.BENCH_STEADY_SECONDS ?? 60);
const withPeer = !process.argv.includes('--no-peer');
const settings: NodeJS.ProcessEnv = {
  ...benchSettings,
  DEFAULT_QUOTA: '1000000',
  USER_RATE_LIMIT: '1000',
  USER_RATE_BURST: '1000',
  USER_MAX_OPEN_TASKS: String(openTaskCap),
};
// BENCH_PROFILE=<dir>: each service writes a V8 CPU profile there when it stops (open in Chrome's DevTools).
// BENCH_NODE_FLAGS: node flags after the services' own (V8 takes a flag's last value), to measure others.
const profileFlags = process.env.BENCH_PROFILE ? `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE}` : '';
settings.NODE_FLAGS = [process.env.BENCH_NODE_FLAGS ?? '', profileFlags].join(' ').trim();

/** Transactions committed so far in each service's database, as PostgreSQL counts them. */
async function transactionsCommitted(platform: Platform): Promise<Record<string, number>> {
  const server = createKnex(platform.env.serverUrl);
  try {
    const byDatabase = Object.fromEntries(serviceNames.map((s) => [new URL(platform.env.databaseUrl(s)).pathname.slice(1), s]));
    const rows = (await server.raw('select datname, xact_commit::bigint as n from pg_stat_database where datname = any(?)', [Object.keys(byDatabase)])).rows;
    return Object.fromEntries(rows.map((row: { datname: string; n: string }) => [byDatabase[row.datname], Number(row.n)]));
  } finally {
    await server.destroy();
  }
}

function transactionsPerTask(before: Record<string, number>, after: Record<string, number>) {
  const per = Object.fromEntries(serviceNames.map((s) => [s, round((after[s] - before[s]) / tasksPerRun)]));
  return { ...per, all: round(serviceNames.reduce((sum, s) => sum + (after[s] - before[s]), 0) / tasksPerRun) };
}

type Limits = Awaited<ReturnType<typeof limits>>;

async function limits(platform: Platform, eventBytes: number) {
  const url = new URL(platform.env.serverUrl);
  url.pathname = `/bench_limits_${platform.env.suffix}`;
  await ensureDatabase(url.toString());
  const db = createKnex(url.toString());
  try {
    await migrateToLatest(db, allMessagingMigrations);
    const transactions = await eventTransactionsPerSecond(db, url.toString(), 8, eventBytes);
    const pipe = await kafkaPipePerSecond(platform.kafka, `${platform.env.topicPrefix}bench-pipe`, eventBytes);
    const hopP99Ms = percentile(await kafkaHop(platform, 200), 99);
    return { transactions, pipe, hopP99Ms, lDb: transactions.perSecond / perTask.transactions, lKafka: pipe / perTask.kafkaMessages };
  } finally {
    await db.destroy();
    await dropDatabase(url.toString());
  }
}

const round = (n: number, places = 1) => +n.toFixed(places);

async function main(): Promise<void> {
  const platform = await new Platform(settings).start();
  const watcher = await new OutcomeWatcher(platform.kafka, new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix)).start();
  const peer = withPeer ? await startPeer(platform) : undefined;
  try {
    await Promise.all([...users, singleUser].map((user) => tokenFor(user)));
    // A first round is slower (code not yet optimised, pools and caches filling): one not counted.
    await saturation(platform, watcher, tasksPerRun, 'warm-up');
    const limit = await limits(platform, Math.round(watcher.averageValueBytes()));
    const measured = [];
    for (let run = 1; run <= rounds; run++) measured.push(await oneRound(platform, watcher, peer, limit, `r${run}`));
    const bound = Math.min(limit.lDb, limit.lKafka);
    const medians = mediansOf(measured);
    writeResult('throughput', {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores, node ${process.version}`,
      tasks: tasksPerRun,
      runs: rounds,
      steadyLoadSeconds: steadySeconds,
      serviceNodeFlags: [...serviceNodeFlags, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)],
      medians,
      limits: {
        eventTransactionsPerSecond: round(limit.transactions.perSecond),
        eventTransactionP99Ms: round(limit.transactions.p99Ms, 2),
        kafkaHopP99Ms: limit.hopP99Ms,
        kafkaPipeMessagesPerSecond: round(limit.pipe),
        lDb: round(limit.lDb),
        lKafka: round(limit.lKafka),
        efficiency: round(medians.saturation.tasksPerSecond / bound, 3),
      },
      everyRun: measured,
    });
  } finally {
    await peer?.stop();
    await watcher.stop();
    await platform.stop();
  }
}

/** One round: saturation clean and with duplicates, one user, the steady load at half of it, and the peer at the same. */
async function oneRound(platform: Platform, watcher: OutcomeWatcher, peer: Peer | undefined, limit: Limits, run: string) {
  const meter = stackCostMeter(Object.fromEntries(serviceNames.map((name) => [name, () => [platform.service(name).child.pid!]])));
  const committedBefore = await transactionsCommitted(platform);
  const countersBefore = await readCounters(platform);
  meter.start();
  const clean = await saturation(platform, watcher, tasksPerRun, `clean-${run}`);
  const cost = meter.stop();
  const transactions = transactionsPerTask(committedBefore, await transactionsCommitted(platform));
  const trips = roundTrips(countersBefore, await readCounters(platform), tasksPerRun);

  const { withDuplicates, duplicator } = await saturationWithDuplicates(platform, watcher, tasksPerRun, run);

  const twenty = await saturation(platform, watcher, tasksPerRun, `twenty-users-${run}`, (i) => fewUsers[i % fewUsers.length]);
  const single = await saturation(platform, watcher, tasksPerRun, `one-user-${run}`, () => singleUser);

  const rate = clean.tasksPerSecond / 2;
  const { latencies, relayLags, stages } = await steadyLoad(platform, watcher, rate, steadySeconds, `steady-${run}`);
  const peerFigures = peer ? await peer.measure(rate, steadySeconds) : undefined;

  const cpuMsPerTask = Object.fromEntries(Object.entries(cost.cpuSeconds).map(([name, s]) => [name, round((s * 1000) / tasksPerRun, 2)]));
  const servicesCpuMsPerTask = round(
    serviceNames.reduce((sum, name) => sum + cpuMsPerTask[name], 0),
    2,
  );
  const halfLoad = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  return {
    saturation: {
      tasksPerSecond: round(clean.tasksPerSecond),
      postMs: clean.postMs,
      withTenPercentDuplicates: round(withDuplicates.tasksPerSecond),
      duplicatesRatio: round(withDuplicates.tasksPerSecond / clean.tasksPerSecond, 2),
      republished: duplicator.republished,
    },
    twentyUsers: {
      tasksPerSecond: round(twenty.tasksPerSecond),
      overTwoHundred: round(twenty.tasksPerSecond / clean.tasksPerSecond, 2),
      postMs: twenty.postMs,
    },
    oneUser: {
      openTaskCapRaisedTo: openTaskCap,
      acceptedPerSecond: single.acceptedPerSecond,
      postMs: single.postMs,
      tasksPerSecond: round(single.tasksPerSecond),
    },
    halfLoad: {
      tasksPerSecond: round(rate),
      postToCompletedMs: halfLoad,
      peerPostToCompletedMs: peerFigures?.halfLoad.postToCompletedMs,
      relayLagMs: { p50: percentile(relayLags, 50), p99: percentile(relayLags, 99) },
      stagesMs: stages,
      p99TargetMs: round(latencyTargetMs(limit.hopP99Ms, limit.transactions.p99Ms)),
      criticalPath,
    },
    cost: {
      cpuMsPerTask,
      servicesCpuMsPerTask,
      peakRssMb: Object.fromEntries(serviceNames.map((name) => [name, round(cost.peakRssMb[name])])),
      transactionsPerTask: { counted: perTask.transactions, measured: transactions },
      ...trips,
    },
    ...(peerFigures ? { peer: peerSummary(peerFigures), oursOverPeer: oursOverPeer(clean.tasksPerSecond, servicesCpuMsPerTask, halfLoad, peerFigures) } : {}),
  };
}

/** The DBOS peer on this run's simulator and PostgreSQL server, at the same concurrency. */
function startPeer(platform: Platform): Promise<Peer> {
  return new Peer({
    serverUrl: platform.env.serverUrl,
    suffix: platform.env.suffix,
    modelUrl: platform.url('model-simulator'),
    users,
    inFlight,
    tasks: tasksPerRun,
  }).start();
}

function peerSummary(peer: PeerFigures) {
  return {
    name: 'DBOS Transact 5.3.0 (bench/peers/dbos), one Node process',
    tasksPerSecond: round(peer.tasksPerSecond),
    cpuMsPerTask: { peer: round(peer.cpuMsPerTask.peer, 2), postgres: round(peer.cpuMsPerTask.postgres, 2) },
    peakRssMb: round(peer.peakRssMb),
  };
}

function oursOverPeer(clean: number, servicesCpuMsPerTask: number, halfLoad: { p50: number; p99: number }, peer: PeerFigures) {
  return {
    saturation: round(clean / peer.tasksPerSecond, 2),
    cpuPerTask: round(servicesCpuMsPerTask / peer.cpuMsPerTask.peer, 2),
    halfLoadP50: round(halfLoad.p50 / peer.halfLoad.postToCompletedMs.p50, 2),
    halfLoadP99: round(halfLoad.p99 / peer.halfLoad.postToCompletedMs.p99, 2),
  };
}

runBenchmark(main);
