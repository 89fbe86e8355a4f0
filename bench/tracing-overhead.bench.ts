/**
 * What tracing costs, measured in one run: the same work with the OpenTelemetry SDK as shipped
 * (every span exported to the stack's Zipkin) and with it turned off (OTEL_SDK_DISABLED=true).
 * Metrics stay on in both (they cannot be turned off), so their cost is inside both figures.
 * - end to end: TaskAccepted → TaskCompleted p50/p99 over 100 tasks submitted one after another;
 * - relay throughput: `bench/relay.bench.ts` run in a child process with and without tracing.
 * Run with `npm run bench:tracing` (the stack must be up, the services built).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { localTracingEnv } from '../tools/stack/stack.config';
import { Platform } from '@test/platform';
import { benchSettings, percentile, runBenchmark, sequentialLatencies, writeResult } from './bench-support';

Logger.overrideLogger(['error']);
const tasks = Number(process.env.BENCH_TASKS ?? 100);
const modes = { off: { OTEL_SDK_DISABLED: 'true' }, on: localTracingEnv() } as const;

async function endToEnd(settings: NodeJS.ProcessEnv): Promise<{ p50: number; p99: number }> {
  const platform = await new Platform({ ...benchSettings, ...settings }).start();
  try {
    const latencies = await sequentialLatencies(platform, tasks);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    await platform.stop();
  }
}

function relayThroughput(tracing: 'on' | 'off'): { batch1: number; batch100: number } {
  const name = `relay-tracing-${tracing}`;
  const run = spawnSync(process.execPath, ['-r', 'ts-node/register', path.join(__dirname, 'relay.bench.ts')], {
    env: { ...process.env, ...(tracing === 'on' ? localTracingEnv() : {}), BENCH_TRACING: tracing, BENCH_RESULT: name, OTEL_SERVICE_NAME: 'relay-bench' },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`relay bench (tracing ${tracing}) failed:\n${run.stderr}`);
  const file = path.join(__dirname, 'results', `${name}.json`);
  const result = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(file);
  return { batch1: result.throughput['batch 1'].outboxRelay, batch100: result.throughput['batch 100'].outboxRelay };
}

async function main(): Promise<void> {
  const e2eOff = await endToEnd(modes.off);
  const e2eOn = await endToEnd(modes.on);
  const relayOff = relayThroughput('off');
  const relayOn = relayThroughput('on');
  writeResult('tracing-overhead', {
    date: new Date().toISOString(),
    tasks,
    e2eMs: { tracingOff: e2eOff, tracingOn: e2eOn, ratio: { p50: +(e2eOn.p50 / e2eOff.p50).toFixed(2), p99: +(e2eOn.p99 / e2eOff.p99).toFixed(2) } },
    relayEventsPerSecond: {
      tracingOff: relayOff,
      tracingOn: relayOn,
      ratio: { batch1: +(relayOn.batch1 / relayOff.batch1).toFixed(2), batch100: +(relayOn.batch100 / relayOff.batch100).toFixed(2) },
    },
  });
}

runBenchmark(main);
