/**
 * Deploys without a pause (issue 49 part 5): two instances of every service at half load (half the
 * saturation measured first, in the same run), a steady window, then a rolling restart of every
 * service (one instance at a time: the load balancer drains it, SIGTERM, the same build started
 * again, back in service once /health answers 200), then one fresh start of every instance at once.
 * Figures: POST → TaskCompleted p50/p99/max of the tasks posted in each window, each ÷ the steady
 * window's; how long each instance took to stop and to be healthy again, and how long each consumer
 * group spent rebalancing meanwhile (asked of the coordinator). Twice in one run: every instance
 * hearing of a rebalance every 2 s (kafkajs's interval as it was: a fifth of the session), then at
 * the default CONSUMER_HEARTBEAT_INTERVAL; the fresh start at the default. Target: the restart
 * window's p99 ≤ 3 × steady, no request lost. `npm run bench:restart` (the stack must be up).
 */
import { Logger } from '@nestjs/common';
import { defaults, serviceNames } from '@app/config';
import { consumerGroupsOf } from '@app/events';
import { EventCodec } from '@app/kafka';
import { Platform } from '../test/support/platform';
import { RunningService, stopService } from '../tools/run/service-process';
import { benchSettings, percentile, runBenchmark, writeResult } from './bench-support';
import { GroupWatch } from './restart/group-watch';
import { SteadyClient } from './restart/steady-client';
import { OutcomeWatcher } from './throughput/outcome-watcher';
import { openTaskCap, saturation } from './throughput/submissions';
import { setTimeout as sleep } from 'node:timers/promises';

Logger.overrideLogger(['error']);
const steadySeconds = Number(process.env.BENCH_STEADY_SECONDS ?? 60);
const before: NodeJS.ProcessEnv = { CONSUMER_HEARTBEAT_INTERVAL: '2s' };
const after: NodeJS.ProcessEnv = {};
type ServiceName = (typeof serviceNames)[number];
interface Step {
  instance: string;
  from: number;
  stopMs: number;
  healthyMs: number;
}

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
    ...before,
  });
  await platform.start();
  const second = new Map<string, RunningService>();
  for (const name of serviceNames) second.set(name, await platform.startAnotherInstance(name, before));
  const watcher = await new OutcomeWatcher(platform.kafka, new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix)).start();
  const prefix = platform.env.topicPrefix;
  const groups = await new GroupWatch(
    platform.kafka,
    serviceNames.flatMap((name) => consumerGroupsOf(name).map(({ group }) => `${prefix}${group}`)),
  ).start();
  const unprefixed = (paused: Record<string, number>) => Object.fromEntries(Object.entries(paused).map(([group, ms]) => [group.slice(prefix.length), ms]));
  const tasksUrl = (service: RunningService) => `http://127.0.0.1:${service.port}`;
  const client = new SteadyClient([platform.url('tasks'), tasksUrl(second.get('tasks')!)]);
  const latenciesBetween = (from: number, to: number) =>
    [...client.postedAt].filter(([id, at]) => at >= from && at < to && watcher.completedAt.has(id)).map(([id, at]) => watcher.completedAt.get(id)! - at);

  /** Drained, stopped with SIGTERM, started again with `settings`, back in service once healthy. */
  const restart = async (name: ServiceName, nth: 0 | 1, settings: NodeJS.ProcessEnv): Promise<Step> => {
    const running = nth === 0 ? platform.service(name) : second.get(name)!;
    const url = tasksUrl(running);
    if (name === 'tasks') client.drain(url);
    const from = Date.now();
    await stopService(running, 'SIGTERM', 30_000);
    const starting = Date.now();
    const started = nth === 0 ? await platform.startApp(name, running.port, settings) : await platform.startAnotherInstance(name, settings);
    if (nth === 1) second.set(name, started);
    if (name === 'tasks') client.serve(tasksUrl(started));
    return { instance: `${name}-${nth + 1}`, from, stopMs: starting - from, healthyMs: Date.now() - starting };
  };
  const rollingRestart = async (settings: NodeJS.ProcessEnv) => {
    const steps: Step[] = [];
    for (const nth of [0, 1] as const) for (const name of serviceNames) steps.push(await restart(name, nth, settings));
    await sleep(5_000);
    return { from: steps[0].from, to: Date.now(), steps };
  };
  /** A rolling restart's figures ÷ the steady window's, and where each step's time went. */
  const windowFigures = (steadyFrom: number, rolled: Awaited<ReturnType<typeof rollingRestart>>) => {
    const steady = figures(latenciesBetween(steadyFrom, rolled.from));
    const restarting = figures(latenciesBetween(rolled.from, rolled.to));
    const steps = rolled.steps.map(({ from, ...step }, i) => {
      const to = rolled.steps[i + 1]?.from ?? rolled.to;
      return { ...step, postedMs: figures(latenciesBetween(from, to)), rebalancingMs: unprefixed(groups.rebalancingBetween(from, to)) };
    });
    return { steadyMs: steady, seconds: Math.round((rolled.to - rolled.from) / 1000), ms: restarting, overSteady: ratios(restarting, steady), steps };
  };

  try {
    const saturated = await saturation(platform, watcher, 600, 'saturation');
    const rate = +(saturated.tasksPerSecond / 2).toFixed(1);
    client.start(rate, 'load');
    await sleep(10_000); // the load's own start
    const steadyBefore = Date.now();
    await sleep(steadySeconds * 1000);
    const rolledBefore = await rollingRestart(before);
    await rollingRestart(after); // every instance moved to the default; a mixed window, not measured
    const steadyAfter = Date.now();
    await sleep(steadySeconds * 1000);
    const rolledAfter = await rollingRestart(after);
    await sleep(10_000);
    await client.stop();
    await watcher.allCompleted([...client.postedAt.keys()], 300_000);
    await platform.consumersCaughtUp(300_000);

    // A fresh start: every instance stopped, then all started at once; the load starts as they answer.
    const all = [...serviceNames.map((name) => platform.service(name)), ...second.values()];
    await Promise.all(all.map((service) => stopService(service, 'SIGTERM', 30_000)));
    const freshFrom = Date.now();
    await Promise.all([
      ...serviceNames.map(async (name) => second.set(name, await platform.startAnotherInstance(name, after))),
      ...serviceNames.map((name) => platform.startApp(name, platform.service(name).port, after)),
    ]);
    const freshHealthyMs = Date.now() - freshFrom;
    const fresh = new SteadyClient([platform.url('tasks'), tasksUrl(second.get('tasks')!)]);
    fresh.start(rate, 'fresh');
    const freshLoadFrom = Date.now();
    await sleep(60_000);
    await fresh.stop();
    await watcher.allCompleted([...fresh.postedAt.keys()], 300_000);
    const freshStart = figures([...fresh.postedAt].map(([id, at]) => watcher.completedAt.get(id)! - at));
    const afterWindow = windowFigures(steadyAfter, rolledAfter);

    writeResult('restart-window', {
      date: new Date().toISOString(),
      instancesPerService: 2,
      saturationTasksPerSecond: +saturated.tasksPerSecond.toFixed(1),
      rate,
      heartbeatEvery2s: windowFigures(steadyBefore, rolledBefore),
      heartbeatDefault: afterWindow,
      freshStart: {
        healthyAfterMs: freshHealthyMs,
        firstMinuteMs: freshStart,
        overSteady: ratios(freshStart, afterWindow.steadyMs),
        rebalancingMs: unprefixed(groups.rebalancingBetween(freshFrom, freshLoadFrom + 60_000)),
      },
      failedRequests: [...client.failures, ...fresh.failures].slice(0, 20),
      failedRequestCount: client.failures.length + fresh.failures.length,
    });
  } finally {
    await client.stop();
    await groups.stop();
    await watcher.stop();
    await platform.stop();
  }
}

runBenchmark(main);
