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
import { consumerGroupsOf } from '@app/catalogue';
import { EventCodec } from '@app/kafka';
import { Platform } from '@test/platform';
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
const tasksUrl = (service: RunningService) => `http://127.0.0.1:${service.port}`;
interface Rolled {
  from: number;
  to: number;
  steps: Step[];
}
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

/** Two instances of every service, the load against both tasks instances, and what each window measured. */
class TwoOfEach {
  readonly second = new Map<string, RunningService>();
  readonly client: SteadyClient;

  constructor(
    readonly platform: Platform,
    readonly watcher: OutcomeWatcher,
    readonly groups: GroupWatch,
  ) {
    this.client = new SteadyClient([platform.url('tasks')]);
  }

  newClient(): SteadyClient {
    return new SteadyClient([this.platform.url('tasks'), tasksUrl(this.second.get('tasks')!)]);
  }

  latenciesBetween(from: number, to: number): number[] {
    const { postedAt } = this.client;
    return [...postedAt]
      .filter(([id, at]) => at >= from && at < to && this.watcher.completedAt.has(id))
      .map(([id, at]) => this.watcher.completedAt.get(id)! - at);
  }

  rebalancingBetween(from: number, to: number): Record<string, number> {
    const prefix = this.platform.env.topicPrefix;
    return Object.fromEntries(Object.entries(this.groups.rebalancingBetween(from, to)).map(([group, ms]) => [group.slice(prefix.length), ms]));
  }

  /** Drained, stopped with SIGTERM, started again with `settings`, back in service once healthy. */
  async restart(name: ServiceName, nth: 0 | 1, settings: NodeJS.ProcessEnv): Promise<Step> {
    const running = nth === 0 ? this.platform.service(name) : this.second.get(name)!;
    if (name === 'tasks') this.client.drain(tasksUrl(running));
    const from = Date.now();
    await stopService(running, 'SIGTERM', 30_000);
    const starting = Date.now();
    const started = nth === 0 ? await this.platform.startApp(name, running.port, settings) : await this.platform.startAnotherInstance(name, settings);
    if (nth === 1) this.second.set(name, started);
    if (name === 'tasks') this.client.serve(tasksUrl(started));
    return { instance: `${name}-${nth + 1}`, from, stopMs: starting - from, healthyMs: Date.now() - starting };
  }

  async rollingRestart(settings: NodeJS.ProcessEnv): Promise<Rolled> {
    const steps: Step[] = [];
    for (const nth of [0, 1] as const) for (const name of serviceNames) steps.push(await this.restart(name, nth, settings));
    await sleep(5_000);
    return { from: steps[0].from, to: Date.now(), steps };
  }

  /** A rolling restart's figures ÷ the steady window's, and where each step's time went. */
  windowFigures(steadyFrom: number, rolled: Rolled) {
    const steady = figures(this.latenciesBetween(steadyFrom, rolled.from));
    const restarting = figures(this.latenciesBetween(rolled.from, rolled.to));
    const steps = rolled.steps.map(({ from, ...step }, i) => {
      const to = rolled.steps[i + 1]?.from ?? rolled.to;
      return { ...step, postedMs: figures(this.latenciesBetween(from, to)), rebalancingMs: this.rebalancingBetween(from, to) };
    });
    return { steadyMs: steady, seconds: Math.round((rolled.to - rolled.from) / 1000), ms: restarting, overSteady: ratios(restarting, steady), steps };
  }

  /** Every instance stopped, then all started at once; the load starts as they answer, for a minute. */
  async freshStart(rate: number, steadyMs: ReturnType<typeof figures>) {
    const all = [...serviceNames.map((name) => this.platform.service(name)), ...this.second.values()];
    await Promise.all(all.map((service) => stopService(service, 'SIGTERM', 30_000)));
    const freshFrom = Date.now();
    await Promise.all([
      ...serviceNames.map(async (name) => this.second.set(name, await this.platform.startAnotherInstance(name, after))),
      ...serviceNames.map((name) => this.platform.startApp(name, this.platform.service(name).port, after)),
    ]);
    const healthyAfterMs = Date.now() - freshFrom;
    const fresh = this.newClient();
    fresh.start(rate, 'fresh');
    const loadFrom = Date.now();
    await sleep(60_000);
    await fresh.stop();
    await this.watcher.allCompleted([...fresh.postedAt.keys()], 300_000);
    const firstMinuteMs = figures([...fresh.postedAt].map(([id, at]) => this.watcher.completedAt.get(id)! - at));
    const figuresOf = {
      healthyAfterMs,
      firstMinuteMs,
      overSteady: ratios(firstMinuteMs, steadyMs),
      rebalancingMs: this.rebalancingBetween(freshFrom, loadFrom + 60_000),
    };
    return { figures: figuresOf, failures: fresh.failures };
  }
}

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
  const prefix = platform.env.topicPrefix;
  const watcher = await new OutcomeWatcher(platform.kafka, new EventCodec(defaults.schemaRegistryUrl, prefix)).start();
  const groups = await new GroupWatch(
    platform.kafka,
    serviceNames.flatMap((name) => consumerGroupsOf(name).map(({ group }) => `${prefix}${group}`)),
  ).start();
  const bench = new TwoOfEach(platform, watcher, groups);
  for (const name of serviceNames) bench.second.set(name, await platform.startAnotherInstance(name, before));
  bench.client.serve(tasksUrl(bench.second.get('tasks')!));
  const { client } = bench;
  try {
    const saturated = await saturation(platform, watcher, 600, 'saturation');
    const rate = +(saturated.tasksPerSecond / 2).toFixed(1);
    client.start(rate, 'load');
    await sleep(10_000); // the load's own start
    const steadyBefore = Date.now();
    await sleep(steadySeconds * 1000);
    const rolledBefore = await bench.rollingRestart(before);
    await bench.rollingRestart(after); // every instance moved to the default; a mixed window, not measured
    const steadyAfter = Date.now();
    await sleep(steadySeconds * 1000);
    const rolledAfter = await bench.rollingRestart(after);
    await sleep(10_000);
    await client.stop();
    await watcher.allCompleted([...client.postedAt.keys()], 300_000);
    await platform.consumersCaughtUp(300_000);
    const afterWindow = bench.windowFigures(steadyAfter, rolledAfter);
    const fresh = await bench.freshStart(rate, afterWindow.steadyMs);
    writeResult('restart-window', {
      date: new Date().toISOString(),
      instancesPerService: 2,
      saturationTasksPerSecond: +saturated.tasksPerSecond.toFixed(1),
      rate,
      heartbeatEvery2s: bench.windowFigures(steadyBefore, rolledBefore),
      heartbeatDefault: afterWindow,
      freshStart: fresh.figures,
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
