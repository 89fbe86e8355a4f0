/**
 * One user's backlog must not hold another's task (issue 47). A quiet user's tasks, one after another,
 * over HTTP and from an outside system (a partner publishing TaskRequested), first on an idle platform,
 * then while two busy users keep their open-task allowances full of slow tasks (BENCH_SLOW_MS, 1 s at
 * the model) that hold every generation slot between them (two users at their share of 8 = 16 slots).
 * Figures: the quiet user's p50/p99 from POST (or publish) to TaskCompleted appended, alone and under
 * the flood, and their ratio; the target is ≤ 2 × at p50. Run with `npm run bench:fairness` (the
 * stack must be up; it builds the services).
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { defaults } from '@app/config';
import { EventCodec } from '@app/kafka';
import { PartnerClient } from '@test/partner';
import { Platform } from '@test/platform';
import { benchSettings, percentile, runBenchmark, writeResult } from './bench-support';
import { OutcomeWatcher } from './throughput/outcome-watcher';
import { setTimeout as sleep } from 'node:timers/promises';

Logger.overrideLogger(['error']);
const quietTasks = Number(process.env.BENCH_TASKS ?? 40);
const slowMs = Number(process.env.BENCH_SLOW_MS ?? 1000);
const busyUsers = ['busy-1', 'busy-2'];

type Submit = () => Promise<{ taskId: string; at: number }>;

/** `count` tasks one after another, each from its submission to its TaskCompleted appended; sorted, in ms. */
async function latencies(watcher: OutcomeWatcher, submit: Submit, count: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const { taskId, at } = await submit();
    await watcher.allCompleted([taskId], 120_000);
    ms.push(watcher.completedAt.get(taskId)! - at);
  }
  return ms.sort((a, b) => a - b);
}

const figures = (ms: number[]) => ({ p50: percentile(ms, 50), p99: percentile(ms, 99) });

/** Keeps a busy user's allowance full: a task refused for too many open ones is sent again a little later. */
async function keepFull(platform: Platform, userId: string, flooding: () => boolean): Promise<number> {
  let sent = 0;
  while (flooding()) {
    const { status } = await platform.submit(userId, { n: sent, simulate: { latencyMs: slowMs } });
    if (status === 202) sent++;
    else await sleep(50);
  }
  return sent;
}

/**
 * Until the busy users hold every slot they may and have jobs due besides. A release without the
 * share endpoint (the one before fair shares, to measure it: its route is not found, where ours
 * refuses a caller without a token) gets ten seconds, by then long full.
 */
async function floodFull(platform: Platform): Promise<void> {
  if ((await fetch(`${platform.url('generation')}/users/${busyUsers[0]}/share`)).status === 404) return void (await sleep(10_000));
  const read = (userId: string) => platform.get<{ running: number; due: number }>('generation', `/users/${userId}/share`);
  // 16 slots by default, 2 kept for users who run nothing: the busy users hold the other 14.
  const full = (shares: Array<{ running: number; due: number }>) => shares.reduce((sum, s) => sum + s.running, 0) >= 14 && shares.every((s) => s.due > 0);
  while (!full(await Promise.all(busyUsers.map(read)))) await sleep(200);
}

async function main(): Promise<void> {
  const platform = new Platform({ ...benchSettings, DEFAULT_QUOTA: '1000000', USER_RATE_LIMIT: '1000', USER_RATE_BURST: '1000' });
  const partner = await PartnerClient.add(`fair${randomUUID().slice(0, 6)}`, platform.env.topicPrefix);
  await platform.start();
  const watcher = await new OutcomeWatcher(platform.kafka, new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix)).start();
  const overHttp: Submit = async () => {
    const at = Date.now();
    return { taskId: (await platform.submit('quiet', { text: 'quiet' })).body.taskId as string, at };
  };
  const fromOutside: Submit = async () => {
    const request = partner.request(`${partner.name}:quiet`);
    const at = Date.now();
    await partner.publish(request);
    return { taskId: request.taskId, at };
  };
  try {
    await latencies(watcher, overHttp, 5); // warms the platform up
    await latencies(watcher, fromOutside, 5);
    const alone = { http: await latencies(watcher, overHttp, quietTasks), outside: await latencies(watcher, fromOutside, quietTasks) };

    let flooding = true;
    const floods = busyUsers.map((userId) => keepFull(platform, userId, () => flooding));
    await floodFull(platform);
    const flooded = { http: await latencies(watcher, overHttp, quietTasks), outside: await latencies(watcher, fromOutside, quietTasks) };
    const busiest = (await platform.get('generation', '/users/busiest?limit=3').catch(() => ({ items: [] }))).items;
    flooding = false;
    const busySent = await Promise.all(floods);

    const ratio = (under: number[], idle: number[], p: number) => +(percentile(under, p) / Math.max(1, percentile(idle, p))).toFixed(2);
    writeResult('fairness', {
      date: new Date().toISOString(),
      quietTasks,
      slowTaskMs: slowMs,
      busyTasksSubmitted: busySent.reduce((sum, n) => sum + n, 0),
      busiestAtTheEnd: busiest,
      aloneMs: { http: figures(alone.http), outside: figures(alone.outside) },
      underFloodMs: { http: figures(flooded.http), outside: figures(flooded.outside) },
      underFloodOverAlone: {
        http: { p50: ratio(flooded.http, alone.http, 50), p99: ratio(flooded.http, alone.http, 99) },
        outside: { p50: ratio(flooded.outside, alone.outside, 50), p99: ratio(flooded.outside, alone.outside, 99) },
      },
    });
  } finally {
    await watcher.stop();
    await partner.remove();
    await platform.stop();
  }
}

runBenchmark(main);
