import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureTopics, localKafkaEnv, localRegistryEnv } from '@app/kafka';
import type { Platform } from '@test/platform';
import { setTimeout as sleep } from 'node:timers/promises';

// The benchmarks drive the stack as its admin (topics and schemas of their own, reading everything);
// the services they start get their own principals.
if (!process.env.KAFKA_USERNAME) Object.assign(process.env, localKafkaEnv('admin'));
if (!process.env.SCHEMA_REGISTRY_USERNAME) Object.assign(process.env, localRegistryEnv('admin'));

/** The value below which p per cent of the sorted samples fall. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Writes a benchmark's result to bench/results/<name>.json (committed, so runs can be compared) and prints it. */
export function writeResult(name: string, result: unknown): void {
  const out = path.join(__dirname, 'results', `${name}.json`);
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten to ${path.relative(process.cwd(), out)}\n`);
}

/** Runs a benchmark to its end: exit 0 when it finished, 1 with the stack when it failed. */
export function runBenchmark(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
      process.exit(1);
    },
  );
}

/** Settings of a benchmark platform: production's (its trace share too, which the local stack raises), but for the model (the simulator answers at once). */
export const benchSettings: NodeJS.ProcessEnv = {
  TRACE_SHARE: '0.1',
  LOG_LEVEL: 'warn',
  GENERATION_RETRY_DELAYS: '5s,30s,2m',
  MODEL_TIMEOUT: '30s',
  OUTBOX_POLL_INTERVAL: '1s',
  // The defaults again where the tests poll faster: the services as `npm start` runs them.
  GENERATION_POLL_INTERVAL: '500ms',
  WEBHOOK_POLL_INTERVAL: '500ms',
  WEBHOOK_RETRY_INITIAL: '1s',
  WEBHOOK_TIMEOUT: '10s',
  CONSUMER_RETRY_INITIAL: '200ms',
  BOOKKEEPING_FETCH_MIN_BYTES: '65536',
  BOOKKEEPING_FETCH_MAX_WAIT: '200ms',
};

/**
 * TaskAccepted → TaskCompleted of `tasks` tasks submitted one after another (after 5 to warm up
 * connections and caches), both instants stamped by the tasks service (one clock); sorted, in ms.
 */
export async function sequentialLatencies(platform: Platform, tasks: number): Promise<number[]> {
  for (let i = 0; i < 5; i++) await platform.settled((await platform.submit('warm-up', { i })).body.taskId);
  const latencies: number[] = [];
  for (let i = 0; i < tasks; i++) {
    const task = await platform.settled((await platform.submit(`bench-${i % 10}`, { i })).body.taskId);
    const at = (type: string) => Date.parse(task.timeline.find((e: { eventType: string }) => e.eventType === type).occurredAt);
    latencies.push(at('TaskCompleted') - at('TaskAccepted'));
  }
  return latencies.sort((a, b) => a - b);
}

/** Latencies (ms, sorted) of one bare Kafka hop, one message at a time: an idempotent kafkajs producer (acks=all) → a consumer. */
export async function kafkaHop(platform: Platform, samples: number): Promise<number[]> {
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
    while (!received.has(String(i))) await sleep(1);
    latencies.push(received.get(String(i))! - sentAt);
  }
  await producer.disconnect();
  await consumer.disconnect();
  return latencies.sort((a, b) => a - b);
}
