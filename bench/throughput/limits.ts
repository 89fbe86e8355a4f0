import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { ensureTopics } from '@app/kafka';
import { postgresBinDir } from '../../tools/stack/postgres';

/**
 * What one successful task costs, counted from the code on the success path (POST /tasks writes
 * TaskAccepted itself).
 *
 * Transactions: POST /tasks (1); one consumer transaction per delivery (9, below); the generation
 * worker's claim and its attempt's outcome (2); the notification's delivery claim and outcome (2).
 * The relays' marking transactions are one per batch and left out. 14 in all.
 *
 * Kafka: 6 events appended (TaskAccepted, QuotaDebited, GenerationStarted, GenerationSucceeded,
 * TaskCompleted, NotificationSent) and 9 deliveries to the services (TaskAccepted→quota,
 * generation; QuotaDebited→tasks, generation; GenerationStarted→tasks; GenerationSucceeded→tasks,
 * quota; TaskCompleted→notification; NotificationSent→tasks). A raw pipe moves each message
 * through one append and one delivery, so a task is worth 9 of its messages.
 */
export const perTask = { transactions: 14, kafkaMessages: 9 };

/**
 * A successful task's critical path, from POST /tasks to TaskCompleted appended, counted from the
 * code. Kafka hops: TaskAccepted → quota, QuotaDebited → generation, GenerationSucceeded → tasks,
 * and TaskCompleted's append (a send only, counted as a whole hop): 4. Transactions: POST /tasks,
 * quota's debit, generation recording the debit, the worker's claim, the attempt's outcome, tasks
 * applying GenerationSucceeded (6), and the read each of the 4 relays makes before it sends: 10.
 */
export const criticalPath = { kafkaHops: 4, transactions: 10 };

/** The latency target at half load: 4 × (h × the bare hop's p99 + t × the event transaction's p99). */
export function latencyTargetMs(kafkaHopP99Ms: number, eventTransactionP99Ms: number): number {
  return 4 * (criticalPath.kafkaHops * kafkaHopP99Ms + criticalPath.transactions * eventTransactionP99Ms);
}

const runSeconds = 5;

/**
 * Transactions/s of the event-transaction shape, measured by pgbench on the platform's own tables:
 * an inbox insert `on conflict do nothing`, an update of one business row, an outbox insert of an
 * event of `eventBytes`, committed, from `concurrency` connections at once. pgbench, not a Node
 * loop: the limit is the database's, not a client's.
 */
export async function eventTransactionsPerSecond(
  db: Knex,
  databaseUrl: string,
  concurrency: number,
  eventBytes: number,
): Promise<{ perSecond: number; p99Ms: number }> {
  await db.schema.createTable('bench_rows', (t) => {
    t.integer('id').primary();
    t.integer('version').notNullable();
  });
  await db('bench_rows').insert(Array.from({ length: 1000 }, (_, id) => ({ id, version: 0 })));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pgbench-'));
  try {
    const payload = JSON.stringify({ pad: 'x'.repeat(Math.max(0, eventBytes - 20)) });
    const script = path.join(work, 'event-transaction.sql');
    fs.writeFileSync(
      script,
      [
        '\\set k random(0, 999)',
        'begin;',
        `insert into inbox (consumer, event_id, event_type, topic, partition, "offset") values ('bench', gen_random_uuid(), 'TaskAccepted', 't', 0, 0) on conflict do nothing;`,
        'update bench_rows set version = version + 1 where id = :k;',
        `insert into outbox (event_id, event_type, message_key, payload, headers) values (gen_random_uuid(), 'QuotaDebited', 'k', '${payload}', '{}');`,
        'commit;',
        '',
      ].join('\n'),
    );
    const url = new URL(databaseUrl);
    const args = ['-n', '-c', String(concurrency), '-j', '2', '-T', String(runSeconds), '-f', script, '-l', `--log-prefix=${path.join(work, 'log')}`];
    args.push('-h', decodeURIComponent(url.hostname), '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'), url.pathname.slice(1));
    const output = execFileSync(path.join(postgresBinDir(), 'pgbench'), args, {
      cwd: work,
      env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) },
    }).toString();
    const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1]);
    if (!Number.isFinite(tps)) throw new Error(`pgbench printed no tps:\n${output}`);
    // Each log line: client, transaction, latency in µs, ...
    const latencies = fs
      .readdirSync(work)
      .filter((f) => f.startsWith('log'))
      .flatMap((f) => fs.readFileSync(path.join(work, f), 'utf8').split('\n').filter(Boolean))
      .map((line) => Number(line.split(' ')[2]) / 1000)
      .sort((a, b) => a - b);
    return { perSecond: tps, p99Ms: latencies[Math.floor(latencies.length * 0.99)] };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Messages/s through a raw kafkajs pipe: an idempotent producer sending batches of 100 messages of
 * `messageBytes` (acks=all) to a topic of 3 partitions while a consumer group reads them; from the
 * first send to the last message read.
 */
export async function kafkaPipePerSecond(kafka: Kafka, topic: string, messageBytes: number, messages = 20_000): Promise<number> {
  await ensureTopics(kafka, [{ topic, partitions: 3 }]);
  const consumer = kafka.consumer({ groupId: `${topic}-pipe-${randomUUID()}`, maxWaitTimeInMs: 50 });
  let joined!: () => void;
  const hasJoined = new Promise<void>((resolve) => (joined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, () => joined());
  let read = 0;
  let allRead!: () => void;
  const done = new Promise<void>((resolve) => (allRead = resolve));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 3,
    eachMessage: async () => {
      if (++read === messages) allRead();
    },
  });
  await hasJoined;
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const value = Buffer.alloc(messageBytes, 'x');
  const started = process.hrtime.bigint();
  for (let sent = 0; sent < messages; sent += 100) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, i) => ({ key: String((sent + i) % 1000), value })) });
  }
  await done;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await producer.disconnect();
  await consumer.disconnect();
  return messages / seconds;
}
