/**
 * End-to-end latency of a successful task with a model that answers at once: from TaskAccepted to
 * TaskCompleted (both stamped by the tasks service, one clock), p50/p99 over 100 tasks submitted one
 * after another. Beside it, in the same run, the baseline of one bare Kafka hop (kafkajs produce →
 * consume); a successful task crosses Kafka three times on its way to TaskCompleted (TaskAccepted → quota,
 * QuotaDebited → generation, GenerationSucceeded → tasks), each hop a consumer transaction.
 * Run with `npm run bench:e2e` (the stack must be up, the services built).
 */
import { Logger } from '@nestjs/common';
import { Platform } from '@test/platform';
import { benchSettings, kafkaHop, percentile, runBenchmark, sequentialLatencies, writeResult } from './bench-support';

Logger.overrideLogger(['error']);
const tasks = Number(process.env.BENCH_TASKS ?? 100);

async function main(): Promise<void> {
  const platform = await new Platform(benchSettings).start();
  try {
    const latencies = await sequentialLatencies(platform, tasks);
    const hop = await kafkaHop(platform, 100);
    const result = {
      date: new Date().toISOString(),
      tasks,
      e2eMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] },
      kafkaHopMs: { p50: percentile(hop, 50), p99: percentile(hop, 99) },
      ratioToOneHop: {
        p50: +(percentile(latencies, 50) / Math.max(1, percentile(hop, 50))).toFixed(1),
        p99: +(percentile(latencies, 99) / Math.max(1, percentile(hop, 99))).toFixed(1),
      },
    };
    writeResult('e2e-latency', result);
  } finally {
    await platform.stop();
  }
}

runBenchmark(main);
