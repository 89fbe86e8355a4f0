/**
 * Audit throughput at scale: publishes the events of healthy flows (6 per task; 1,000,002 events by
 * default, BENCH_AUDIT_TASKS to change) behind a fresh topic prefix, then runs the audit command over
 * them with its heap capped at 256 MB. The baseline, in the same run, is reading the same
 * topics with a bare kafkajs consumer that decodes nothing. Run with `npm run bench:audit` (stack up).
 */
import { spawn } from 'node:child_process';
import { registerSchemas } from '@app/kafka-admin';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { defaults } from '@app/config';
import { DomainEvent, eventTypes, newEvent } from '@app/events';
import { createKafka, ensureTopics, EventCodec } from '@app/kafka';
import { rssMb } from './throughput/process-cost';
import { runBenchmark, writeResult } from './bench-support';

Logger.overrideLogger(['error']);
const tasks = Number(process.env.BENCH_AUDIT_TASKS ?? 166_667); // 1,000,002 events
const prefix = `benchaudit${randomUUID().slice(0, 8)}.`;
const kafka = createKafka('bench-audit', [defaults.kafkaBrokers]);
const codec = new EventCodec(defaults.schemaRegistryUrl, prefix);

function healthyFlow(i: number): DomainEvent[] {
  const origin = { taskId: randomUUID(), userId: `user-${i % 50}`, correlationId: randomUUID(), causationId: null };
  return [
    newEvent('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'bench'),
    newEvent('QuotaDebited', { amount: 1, balanceAfter: 9 }, origin, 'bench'),
    newEvent('GenerationStarted', { attempt: 1 }, origin, 'bench'),
    newEvent('GenerationSucceeded', { attempt: 1, reportRef: 'r', reportBytes: 1024 }, origin, 'bench'),
    newEvent('TaskCompleted', { reportRef: 'r' }, origin, 'bench'),
    newEvent('NotificationSent', { outcome: 'TaskCompleted', channel: 'inbox' }, origin, 'bench'),
  ];
}

async function bareRead(topics: string[], total: number): Promise<number> {
  const consumer = kafka.consumer({ groupId: `${prefix}bare` });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  const started = Date.now();
  let read = 0;
  await new Promise<void>((resolve) => {
    void consumer.run({ eachBatch: async ({ batch }) => void ((read += batch.messages.length) >= total && resolve()) });
  });
  const seconds = (Date.now() - started) / 1000;
  await consumer.disconnect();
  return total / seconds;
}

/**
 * The audit command itself (`npm run audit -- --json`) over the prefix's topics, in a process whose
 * heap is capped at 256 MB: it streams or it dies. Its peak RSS is sampled meanwhile.
 */
async function auditInBoundedHeap(): Promise<{ report: { events: number; violations: unknown[]; readSeconds: number }; peakRssMb: number }> {
  const child = spawn(process.execPath, ['--max-old-space-size=256', '-r', 'ts-node/register', 'tools/audit/cli.ts', '--json'], {
    env: { ...process.env, TOPIC_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let peakRssMb = 0;
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, rssMb(child.pid!))), 200);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  if (code !== 0 && code !== 1) throw new Error(`the audit exited with ${code}: ${output.slice(-2000)}`);
  return { report: JSON.parse(output), peakRssMb: Math.round(peakRssMb) };
}

async function publishHealthyFlows(topics: string[]): Promise<void> {
  await ensureTopics(
    kafka,
    topics.map((topic) => ({ topic })),
  );
  await registerSchemas(codec);
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  // Made and sent 100 flows at a time: the bench holds no more of the history than the audit may.
  for (let first = 0; first < tasks; first += 100) {
    const events = Array.from({ length: Math.min(100, tasks - first) }, (_, i) => healthyFlow(first + i)).flat();
    const byTopic = new Map<string, Array<{ key: string; value: Buffer }>>();
    for (const e of events) {
      const topic = codec.topicFor(e.eventType);
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { key: e.taskId, value: await codec.encode(e) }]);
    }
    await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
  }
  await producer.disconnect();
}

async function main(): Promise<void> {
  const topics = eventTypes.map((t) => codec.topicFor(t));
  await publishHealthyFlows(topics);
  try {
    const { report, peakRssMb } = await auditInBoundedHeap();
    const bare = await bareRead(topics, tasks * 6);
    const auditPerSecond = report.events / report.readSeconds;
    const result = {
      date: new Date().toISOString(),
      events: report.events,
      violations: report.violations.length,
      heapLimitMb: 256,
      auditPeakRssMb: peakRssMb,
      auditEventsPerSecond: Math.round(auditPerSecond),
      bareKafkajsReadEventsPerSecond: Math.round(bare),
      ratio: +(auditPerSecond / bare).toFixed(2),
    };
    writeResult('audit', result);
    if (report.events !== tasks * 6) throw new Error(`the audit read ${report.events} events of ${tasks * 6}`);
  } finally {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.deleteGroups([`${prefix}bare`]).catch(() => undefined);
    await admin.disconnect();
  }
}

runBenchmark(main);
