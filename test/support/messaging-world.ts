import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Kafka } from 'kafkajs';
import { defaults } from '@app/config';
import { createKnex, ensureDatabase, migrateToLatest } from '@app/database';
import { DomainEvent, newEvent } from '@app/events';
import { EventHandlers, allMessagingMigrations } from '@app/messaging';
import { ConsumerOptions, ConsumerRunner, OutboxRelay, RelayOptions } from '@app/messaging/testing';
import { createKafka, EventCodec } from '@app/kafka';
import { removeTestData } from './remove-test-data';
import { TestEnv } from './test-env';

/**
 * A table a test handler writes to, with no unique key, so that a doubled effect would show. Made
 * outside the migrator, so that a real service can migrate the same database after the test.
 */
async function createEffectsTable(knex: Knex): Promise<void> {
  await knex.schema.createTable('effects', (t) => {
    t.bigIncrements('id');
    t.uuid('event_id').notNullable();
    t.text('note');
  });
}

/**
 * The real broker, registry and a database of its own for one test file: the messaging tables
 * migrated, every event topic created behind a unique prefix.
 */
export class MessagingWorld {
  readonly env = new TestEnv();
  readonly databaseUrl = this.env.databaseUrl('quota');
  readonly kafka = createKafka('test', [defaults.kafkaBrokers]);
  readonly codec = new EventCodec(defaults.schemaRegistryUrl, this.env.topicPrefix);
  readonly db: Knex = createKnex(this.databaseUrl);
  private readonly closers: Array<() => Promise<unknown>> = [];

  async setup(): Promise<this> {
    await ensureDatabase(this.databaseUrl);
    await migrateToLatest(this.db, allMessagingMigrations);
    await createEffectsTable(this.db);
    await this.env.provision(); // every event topic, the services' dead letters, and the principals' ACLs
    return this;
  }

  async relay(options: Partial<RelayOptions> = {}, db: Knex = this.db, kafka: Kafka = this.kafka): Promise<OutboxRelay> {
    const relay = new OutboxRelay(db, kafka, this.codec, { batchSize: 100, pollIntervalMs: 200, retentionMs: 3_600_000, ...options });
    await relay.start();
    this.closers.push(() => relay.stop());
    return relay;
  }

  async consumer(
    handlers: EventHandlers,
    options: {
      name?: string;
      maxAttempts?: number;
      codec?: EventCodec;
      db?: Knex;
      partitionsConcurrently?: number;
      progress?: ConsumerOptions['progress'];
    } & Pick<ConsumerOptions, 'group' | 'reads' | 'fetch'> = {},
  ): Promise<ConsumerRunner> {
    const runner = new ConsumerRunner(options.db ?? this.db, this.kafka, options.codec ?? this.codec, {
      name: options.name ?? 'test-consumer',
      handlers,
      maxAttempts: options.maxAttempts ?? 3,
      retryBackoff: { initialMs: 20, maxMs: 100, jitter: 0.2 },
      topicPartitions: 3,
      partitionsConcurrently: options.partitionsConcurrently,
      progress: options.progress,
      group: options.group,
      reads: options.reads,
      fetch: options.fetch,
      createTopics: true,
    });
    await runner.start();
    this.closers.push(() => runner.stop());
    return runner;
  }

  onTeardown(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  /** Publishes events as a producing service would: Confluent-framed Avro, keyed by taskId. */
  async publish(events: DomainEvent[]): Promise<void> {
    const producer = this.kafka.producer();
    await producer.connect();
    try {
      for (const event of events) {
        await producer.send({
          topic: this.codec.topicFor(event.eventType),
          acks: -1,
          messages: [{ key: event.taskId, value: await this.codec.encode(event) }],
        });
      }
    } finally {
      await producer.disconnect();
    }
  }

  /** How many messages a topic holds, summed over its partitions. */
  async messageCount(topic: string): Promise<number> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
    } finally {
      await admin.disconnect();
    }
  }

  async teardown(): Promise<void> {
    for (const close of this.closers.reverse()) await close().catch(() => undefined);
    await this.db.destroy();
    await this.env.dropDatabases(['quota']);
    await removeTestData(this.kafka, this.env.topicPrefix);
  }
}

/** A valid TaskRequested for `taskId`, with `note` in its input to tell events apart. */
export function taskRequested(taskId: string = randomUUID(), note = ''): DomainEvent {
  return newEvent(
    'TaskRequested',
    { idempotencyKey: null, reportType: 'summary', input: JSON.stringify({ note }) },
    { taskId, userId: 'user-1', correlationId: randomUUID(), causationId: null },
    'test',
  );
}
