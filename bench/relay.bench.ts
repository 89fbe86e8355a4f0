import './tracing-switch';
import { registerSchemas } from '@app/kafka-admin';
import { traceparentFor } from '@app/tracing';
import * as os from 'node:os';
/**
 * Outbox relay throughput (batches of 1 and of 100) and commit→Kafka-append latency, each beside a
 * baseline measured in the same run on the same stack: kafkajs producing the same events straight
 * to Kafka, with no database. Run with `npm run bench` (the stack must be up: `npm run stack:up`).
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { defaults } from '@app/config';
import { createKnex, dropDatabase, ensureDatabase, migrateToLatest } from '@app/database';
import { DomainEvent, eventTypes, newEvent } from '@app/events';
import { allMessagingMigrations, outbox } from '@app/messaging';
import { createKafka, EventCodec } from '@app/kafka';
import { outboxCommitted, OutboxRelay, outboxSignal, relayLockKey } from '@app/messaging/testing';
import { percentile, runBenchmark, writeResult } from './bench-support';
import { setTimeout as sleep } from 'node:timers/promises';

Logger.overrideLogger(['error']);

const throughputEvents = Number(process.env.BENCH_EVENTS ?? 10000);
const latencyEvents = Number(process.env.BENCH_LATENCY_EVENTS ?? 300);
const latencyRatePerSecond = 50;

const suffix = randomUUID().slice(0, 8);
const prefix = `bench${suffix}.`;
const databaseUrl = (() => {
  const url = new URL(process.env.DATABASE_URL || defaults.databaseUrl);
  url.pathname = `/bench_${suffix}`;
  return url.toString();
})();
const kafka = createKafka('bench', [defaults.kafkaBrokers]);
const codec = new EventCodec(defaults.schemaRegistryUrl, prefix);
const topic = codec.topicFor('TaskRequested');

function event(i: number): DomainEvent {
  const origin = { taskId: randomUUID(), userId: `user-${i % 50}`, correlationId: randomUUID(), causationId: null };
  return newEvent('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: JSON.stringify({ i }) }, origin, 'bench');
}

function headersOf(e: DomainEvent): Record<string, string> {
  return { eventId: e.eventId, eventType: e.eventType, traceparent: traceparentFor(e.correlationId) };
}

async function createTopics(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  // LogAppendTime: each message's timestamp is the broker's append time, which the latency needs.
  await admin.createTopics({
    waitForLeaders: false,
    topics: eventTypes.map((type) => ({
      topic: codec.topicFor(type),
      numPartitions: 3,
      configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
    })),
  });
  for (;;) {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => ({ topics: [] as Array<{ partitions: Array<{ leader: number }> }> }));
    if (topics[0]?.partitions.length && topics[0].partitions.every((p) => p.leader >= 0)) break;
    await sleep(100);
  }
  await admin.disconnect();
}

/** Events/s from a full outbox to all rows marked published. */
async function relayThroughput(db: ReturnType<typeof createKnex>, batchSize: number): Promise<number> {
  await db('outbox').delete();
  const rows = Array.from({ length: throughputEvents }, (_, i) => event(i));
  for (let i = 0; i < rows.length; i += 500) {
    await db.transaction(async (trx) => {
      for (const e of rows.slice(i, i + 500)) await outbox.add(trx, e);
    });
  }
  const relay = new OutboxRelay(db, kafka, codec, { batchSize, pollIntervalMs: 1000, retentionMs: 3_600_000 });
  // The relay connects while another transaction holds its lock: the time counts publishing only, as the baseline's does.
  const holder = await db.transaction();
  await holder.raw('select pg_advisory_xact_lock(?)', [relayLockKey]);
  await relay.start();
  const started = process.hrtime.bigint();
  await holder.commit();
  outboxSignal.emit(outboxCommitted);
  // Watched in memory: a query to count the rows left would take the relay's process's CPU.
  while (relay.stats.published < throughputEvents) await sleep(2);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await relay.stop();
  return throughputEvents / seconds;
}

/**
 * Events/s for kafkajs sending the same messages (key, Avro value, the headers an outbox row carries)
 * straight to Kafka, in batches of `batchSize`.
 */
async function rawThroughput(batchSize: number): Promise<number> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const events = Array.from({ length: throughputEvents }, (_, i) => event(i));
  const started = process.hrtime.bigint();
  for (let i = 0; i < events.length; i += batchSize) {
    const messages = await Promise.all(
      events.slice(i, i + batchSize).map(async (e) => ({ key: e.taskId, value: await codec.encode(e), headers: headersOf(e) })),
    );
    await producer.send({ topic, acks: -1, messages });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await producer.disconnect();
  return throughputEvents / seconds;
}

/**
 * Milliseconds from the moment a write is ready (its commit; the send call for the baseline) to the
 * broker's append time. Both ends are recorded by event id and matched at the end.
 */
async function latencies(write: (e: DomainEvent) => Promise<void>): Promise<number[]> {
  const readyAt = new Map<string, number>();
  const appendedAt = new Map<string, number>();
  const consumer = kafka.consumer({ groupId: `bench-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => void appendedAt.set(message.headers?.eventId?.toString() ?? '', Number(message.timestamp)),
  });
  for (let i = 0; i < latencyEvents; i++) {
    const e = event(i);
    await write(e);
    readyAt.set(e.eventId, Date.now());
    await sleep(1000 / latencyRatePerSecond);
  }
  while ([...readyAt.keys()].some((id) => !appendedAt.has(id))) await sleep(50);
  await consumer.disconnect();
  return [...readyAt].map(([id, ready]) => (appendedAt.get(id) ?? 0) - ready).sort((a, b) => a - b);
}

async function main(): Promise<void> {
  await ensureDatabase(databaseUrl);
  const db = createKnex(databaseUrl);
  await migrateToLatest(db, allMessagingMigrations);
  await createTopics();
  await registerSchemas(codec);
  try {
    const result = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores, node ${process.version}`,
      events: throughputEvents,
      throughput: {} as Record<string, { outboxRelay: number; rawKafkajs: number; ratio: number }>,
      latencyMs: {} as Record<string, { p50: number; p99: number }>,
      latencyRatio: {} as Record<string, number>,
    };
    for (const batchSize of [1, 100]) {
      const raw = await rawThroughput(batchSize);
      const relay = await relayThroughput(db, batchSize);
      result.throughput[`batch ${batchSize}`] = { outboxRelay: Math.round(relay), rawKafkajs: Math.round(raw), ratio: +(relay / raw).toFixed(2) };
    }

    const baselineProducer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await baselineProducer.connect();
    const raw = await latencies(async (e) => {
      const value = await codec.encode(e);
      void baselineProducer.send({ topic, acks: -1, messages: [{ key: e.taskId, value, headers: headersOf(e) }] });
    });
    await baselineProducer.disconnect();

    await db('outbox').delete();
    const relay = new OutboxRelay(db, kafka, codec, { batchSize: 100, pollIntervalMs: 1000, retentionMs: 3_600_000 });
    await relay.start();
    const outboxLatencies = await latencies((e) => db.transaction((trx) => outbox.add(trx, e)));
    await relay.stop();

    result.latencyMs = {
      'outbox commit→append': { p50: percentile(outboxLatencies, 50), p99: percentile(outboxLatencies, 99) },
      'kafkajs send→append (baseline)': { p50: percentile(raw, 50), p99: percentile(raw, 99) },
    };
    result.latencyRatio = {
      p50: +(percentile(outboxLatencies, 50) / Math.max(1, percentile(raw, 50))).toFixed(2),
      p99: +(percentile(outboxLatencies, 99) / Math.max(1, percentile(raw, 99))).toFixed(2),
    };
    writeResult(process.env.BENCH_RESULT || 'relay', result);
  } finally {
    await db.destroy();
    await dropDatabase(databaseUrl);
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: eventTypes.map((t) => codec.topicFor(t)) }).catch(() => undefined);
    await admin.disconnect();
  }
}

runBenchmark(main);
