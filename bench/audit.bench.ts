/**
 * Audit throughput: publishes the events of healthy flows (6 per task) behind a fresh topic prefix,
 * then runs the audit's read and checks over them. The baseline, in the same run, is reading the same
 * topics with a bare kafkajs consumer that decodes nothing. Run with `npm run bench:audit` (stack up).
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { defaults } from '@app/config';
import { DomainEvent, eventTypes, newEvent } from '@app/events';
import { createKafka, ensureTopics, EventCodec } from '@app/messaging';
import { audit } from '../tools/audit/audit-invariants';
import { readAllEvents } from '../tools/audit/read-all-events';
import { runBenchmark, writeResult } from './bench-support';

Logger.overrideLogger(['error']);
const tasks = Number(process.env.BENCH_AUDIT_TASKS ?? 1700);
const prefix = `benchaudit${randomUUID().slice(0, 8)}.`;
const kafka = createKafka('bench-audit', [defaults.kafkaBrokers]);
const codec = new EventCodec(defaults.schemaRegistryUrl, prefix);

function healthyFlow(i: number): DomainEvent[] {
  const origin = { taskId: randomUUID(), userId: `user-${i % 50}`, correlationId: randomUUID(), causationId: null };
  return [
    newEvent('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'bench'),
    newEvent('QuotaDebited', { amount: 1, balanceAfter: 9 }, origin, 'bench'),
    newEvent('GenerationStarted', { attempt: 1 }, origin, 'bench'),
    newEvent('GenerationSucceeded', { attempt: 1, reportRef: 'r' }, origin, 'bench'),
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

async function main(): Promise<void> {
  const topics = eventTypes.map((t) => codec.topicFor(t));
  await ensureTopics(
    kafka,
    topics.map((topic) => ({ topic })),
  );
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const events = Array.from({ length: tasks }, (_, i) => healthyFlow(i)).flat();
  for (let i = 0; i < events.length; i += 500) {
    const slice = events.slice(i, i + 500);
    const messages = await Promise.all(slice.map(async (e) => ({ topic: codec.topicFor(e.eventType), key: e.taskId, value: await codec.encode(e) })));
    const byTopic = new Map<string, Array<{ key: string; value: Buffer }>>();
    for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), { key: m.key, value: m.value }]);
    await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, msgs]) => ({ topic, messages: msgs })) });
  }
  await producer.disconnect();
  try {
    const started = Date.now();
    const { events: read } = await readAllEvents(kafka, codec);
    const report = audit(read);
    const seconds = (Date.now() - started) / 1000;
    const bare = await bareRead(topics, events.length);
    const result = {
      date: new Date().toISOString(),
      events: read.length,
      violations: report.violations.length,
      auditEventsPerSecond: Math.round(read.length / seconds),
      bareKafkajsReadEventsPerSecond: Math.round(bare),
      ratio: +(read.length / seconds / bare).toFixed(2),
    };
    writeResult('audit', result);
  } finally {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.deleteGroups([`${prefix}bare`]).catch(() => undefined);
    await admin.disconnect();
  }
}

runBenchmark(main);
