/**
 * Deploys without a pause (issue 49 part 5): two instances of every service at half load (half the
 * saturation measured first, in the same run), a steady window, then a rolling restart of every
 * service (one instance at a time: the load balancer drains it, SIGTERM, the same build started
 * again, back in service once /health answers 200), then one fresh start of every instance at once.
 * Figures: POST → TaskCompleted p50/p99/max of the tasks posted in each window, each ÷ the steady
 * window's; how long each instance took to stop and to be healthy again. Target: the restart
 * window's p99 ≤ 3 × steady, no request lost. `npm run bench:restart` (the stack must be up).
 */
import { Logger } from '@nestjs/common';
import { defaults, serviceNames } from '@app/config';
import { EventCodec } from '@app/kafka';
import { Platform } from '../test/support/platform';
import { RunningService, stopService } from '../tools/run/service-process';
import { benchSettings, percentile, runBenchmark, writeResult } from './bench-support';
import { SteadyClient } from './restart/steady-client';
import { OutcomeWatcher } from './throughput/outcome-watcher';
import { openTaskCap, saturation } from './throughput/submissions';
import { setTimeout as sleep } from 'node:timers/promises';

Logger.overrideLogger(['error']);
const steadySeconds = Number(process.env.BENCH_STEADY_SECONDS ?? 60);

const figures = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { tasks: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
};
const ratios = (window: ReturnType<typeof figures>, steady: ReturnType<typeof figures>) => ({
  p50: +(window.p50 / steady.p50).toFixed(2),
  p99: +(window.p99 / steady.p99).toFixed(2),
  max: +(window.max / steady.max).toFixed(2),
});

async function main(): Promise<void> {
  const platform = new Platform({
    ...benchSettings,
    DEFAULT_QUOTA: '1000000',
    USER_RATE_LIMIT: '1000',
    USER_RATE_BURST: '1000',
    USER_MAX_OPEN_TASKS: String(openTaskCap),
  });
  await platform.start();
  const second = new Map<string, RunningService>();
  for (const name of serviceNames) second.set(name, await platform.startAnotherInstance(name));
  const watcher = await new OutcomeWatcher(platform.kafka, new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix)).start();
  const tasksUrl = (service: RunningService) => `http://127.0.0.1:${service.port}`;
  const client = new SteadyClient([platform.url('tasks'), tasksUrl(second.get('tasks')!)]);
  const latenciesBetween = (from: number, to: number) =>
    [...client.postedAt].filter(([id, at]) => at >= from && at < to && watcher.completedAt.has(id)).map(([id, at]) => watcher.completedAt.get(id)! - at);
  const steps: Array<{ instance: string; stopMs: number; healthyMs: number }> = [];

  /** Drained, stopped with SIGTERM, started again on its port, back in service once healthy. */
  const restart = async (name: (typeof serviceNames)[number], nth: 0 | 1) => {
    const running = nth === 0 ? platform.service(name) : second.get(name)!;
    const url = tasksUrl(running);
    if (name === 'tasks') client.drain(url);
    const stopping = Date.now();
    await stopService(running, 'SIGTERM', 30_000);
    const starting = Date.now();
    const started = nth === 0 ? await platform.startApp(name, running.port) : await platform.startAnotherInstance(name);
    if (nth === 1) second.set(name, started);
    if (name === 'tasks') client.serve(tasksUrl(started));
    steps.push({ instance: `${name}-${nth + 1}`, stopMs: starting - stopping, healthyMs: Date.now() - starting });
  };

  try {
    const saturated = await saturation(platform, watcher, 600, 'saturation');
    const rate = +(saturated.tasksPerSecond / 2).toFixed(1);
    client.start(rate, 'load');
    await sleep(10_000); // the load's own start
    const steadyFrom = Date.now();
    await sleep(steadySeconds * 1000);
    const restartFrom = Date.now();
    for (const nth of [0, 1] as const) for (const name of serviceNames) await restart(name, nth);
    const restartTo = Date.now() + 5_000;
    await sleep(15_000);
    await client.stop();
    await watcher.allCompleted([...client.postedAt.keys()], 300_000);
    await platform.consumersCaughtUp(300_000);

    // A fresh start: every instance stopped, then all started at once; the load starts as they answer.
    const all = [...serviceNames.map((name) => platform.service(name)), ...second.values()];
    await Promise.all(all.map((service) => stopService(service, 'SIGTERM', 30_000)));
    const freshFrom = Date.now();
    await Promise.all([
      ...serviceNames.map(async (name) => second.set(name, await platform.startAnotherInstance(name))),
      ...serviceNames.map((name) => platform.startApp(name, platform.service(name).port)),
    ]);
    const freshHealthyMs = Date.now() - freshFrom;
    const fresh = new SteadyClient([platform.url('tasks'), tasksUrl(second.get('tasks')!)]);
    fresh.start(rate, 'fresh');
    const freshLoadFrom = Date.now();
    await sleep(60_000);
    await fresh.stop();
    await watcher.allCompleted([...fresh.postedAt.keys()], 300_000);
    const freshLatencies = [...fresh.postedAt].map(([id, at]) => watcher.completedAt.get(id)! - at);

    const steady = figures(latenciesBetween(steadyFrom, restartFrom));
    const restarting = figures(latenciesBetween(restartFrom, restartTo));
    const freshStart = figures(freshLatencies);
    writeResult('restart-window', {
      date: new Date().toISOString(),
      instancesPerService: 2,
      saturationTasksPerSecond: +saturated.tasksPerSecond.toFixed(1),
      rate,
      steadyMs: steady,
      restartWindow: { seconds: Math.round((restartTo - restartFrom) / 1000), ms: restarting, overSteady: ratios(restarting, steady), steps },
      freshStart: {
        healthyAfterMs: freshHealthyMs,
        firstMinuteMs: freshStart,
        overSteady: ratios(freshStart, steady),
        loadFrom: new Date(freshLoadFrom).toISOString(),
      },
      failedRequests: [...client.failures, ...fresh.failures].slice(0, 20),
      failedRequestCount: client.failures.length + fresh.failures.length,
    });
  } finally {
    await client.stop();
    await watcher.stop();
    await platform.stop();
  }
}

runBenchmark(main);
