/**
 * End-to-end latency of a successful task with a model that answers at once: from TaskAccepted to
 * TaskCompleted (both stamped by the tasks service, one clock), p50/p99 over 100 tasks submitted one
 * after another. Beside it, in the same run, the baseline of one bare Kafka hop (kafkajs produce →
 * consume); a successful task crosses Kafka three times on its way to TaskCompleted (TaskAccepted → quota,
 * QuotaDebited → generation, GenerationSucceeded → tasks), each hop a consumer transaction.
 * Run with `npm run bench:e2e` (the stack must be up, the services built).
 */
import { Logger } from '@nestjs/common';
import { ensureTopics } from '@app/messaging';
import { Platform } from '../test/support/platform';
import { benchSettings, percentile, runBenchmark, sequentialLatencies, writeResult } from './bench-support';

Logger.overrideLogger(['error']);
const tasks = Number(process.env.BENCH_TASKS ?? 100);

async function kafkaHop(platform: Platform, samples: number): Promise<number[]> {
  const topic = `${platform.env.topicPrefix}bench-hop`;
  await ensureTopics(platform.kafka, [{ topic }]);
  const consumer = platform.kafka.consumer({ groupId: `${topic}-group` });
  const received = new Map<string, number>();
  let joined!: () => void;
  const hasJoined = new Promise<void>((resolve) => (joined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, () => joined());
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void received.set(message.value!.toString(), Date.now()) });
  await hasJoined;
  const producer = platform.kafka.producer({ idempotent: true });
  await producer.connect();
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const sentAt = Date.now();
    await producer.send({ topic, acks: -1, messages: [{ key: String(i), value: String(i) }] });
    while (!received.has(String(i))) await new Promise((resolve) => setTimeout(resolve, 1));
    latencies.push(received.get(String(i))! - sentAt);
  }
  await producer.disconnect();
  await consumer.disconnect();
  return latencies.sort((a, b) => a - b);
}

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
