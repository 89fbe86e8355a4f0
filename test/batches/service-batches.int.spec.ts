import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex, ensureDatabase, migrateToLatest, Migration } from '@app/database';
import { DomainEvent, EventBody, EventType, newEvent } from '@app/events';
import { EventHandlers } from '@app/messaging';
import { ConsumerRunner } from '@app/messaging/testing';
import { generationMigrations } from '../../apps/generation/src/migrations';
import { GenerationHandlers } from '../../apps/generation/src/generation.handlers';
import { notificationMigrations } from '../../apps/notification/src/migrations';
import { NotificationHandlers } from '../../apps/notification/src/notification.handlers';
import { quotaMigrations } from '../../apps/quota/src/migrations';
import { QuotaHandlers } from '../../apps/quota/src/quota.handlers';
import { loadQuotaConfig } from '../../apps/quota/src/quota.config';
import { tasksMigrations } from '../../apps/tasks/src/migrations';
import { TasksHandlers } from '../../apps/tasks/src/tasks.handlers';
import { loadTasksConfig } from '../../apps/tasks/src/tasks.config';
import { MessagingWorld } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

type Service = 'tasks' | 'quota' | 'generation' | 'notification';

/**
 * Each service's real handlers, fed by its real consumer from the real broker into its own migrated
 * database, one Kafka batch at a time: copies of an event, two events of one task in the reverse of
 * the order they happened, and a message no codec can read, all in one batch. Each effect must
 * happen once, decided in offset order, and the poison message alone be dead-lettered.
 */
describe("each service's handlers over one batch", () => {
  // A world (topics, databases) per test: a consumer reads its topics from the beginning.
  let world: MessagingWorld;
  const databases: Knex[] = [];
  beforeEach(async () => {
    world = await new MessagingWorld().setup();
  });
  afterEach(async () => {
    for (const db of databases.splice(0)) await db.destroy();
    await world.env.dropDatabases(['tasks', 'generation', 'notification']);
    await world.teardown();
  });

  async function serviceDatabase(service: Service, migrations: Migration[]): Promise<Knex> {
    const url = world.env.databaseUrl(service);
    await ensureDatabase(url);
    const db = createKnex(url);
    databases.push(db);
    await migrateToLatest(db, migrations);
    return db;
  }

  async function consumer(service: Service, db: Knex, handlers: EventHandlers): Promise<ConsumerRunner> {
    const runner = new ConsumerRunner(db, world.kafka, world.codec, {
      name: service,
      handlers,
      maxAttempts: 2,
      retryBackoff: { initialMs: 20, maxMs: 100, jitter: 0.2 },
      topicPartitions: 3,
      createTopics: true,
    });
    world.onTeardown(() => runner.stop());
    await runner.start();
    return runner;
  }

  /** `messages` onto one topic with one request, all keyed alike so that they share a partition: one batch. */
  async function produceAsOneBatch(type: EventType, messages: Array<DomainEvent | 'poison'>): Promise<void> {
    const producer = world.kafka.producer();
    await producer.connect();
    try {
      const values: Buffer[] = [];
      for (const m of messages) values.push(m === 'poison' ? Buffer.from('no Confluent frame, no Avro') : await world.codec.encode(m));
      await producer.send({ topic: world.codec.topicFor(type), acks: -1, messages: values.map((value) => ({ key: 'one-partition', value })) });
    } finally {
      await producer.disconnect();
    }
  }

  const event = <T extends EventType>(type: T, taskId: string, body: EventBody<T>, userId = 'batch-user') =>
    newEvent(type, body, { taskId, userId, correlationId: randomUUID(), causationId: null }, 'test') as DomainEvent;

  /** The transactions (xids) the inbox rows of `eventIds` were written in. */
  const writers = async (db: Knex, eventIds: string[]) =>
    new Set((await db('inbox').whereIn('event_id', eventIds).select(db.raw('xmin::text as xid'))).map((row) => row.xid));

  it('quota: copies decided once, the first acceptance of a task decides, one unit each until the balance is spent', async () => {
    const db = await serviceDatabase('quota', quotaMigrations);
    const runner = await consumer('quota', db, new QuotaHandlers({ ...loadQuotaConfig({}), defaultQuota: 2 }).handlers());
    const [t1, t2, t3] = [randomUUID(), randomUUID(), randomUUID()];
    const accepted = (taskId: string) => event('TaskAccepted', taskId, { idempotencyKey: null, reportType: 'summary', input: '{}' });
    const [first, second, other, last] = [accepted(t1), accepted(t1), accepted(t2), accepted(t3)];

    await produceAsOneBatch('TaskAccepted', [first, first, second, other, 'poison', last]);

    await waitFor(() => runner.stats.processed === 4 && runner.stats.deadLettered === 1, { what: 'four events handled, the poison dead-lettered' });
    expect(runner.stats.duplicates).toBe(1);
    const ledger = await db('quota_ledger').whereNot({ kind: 'grant' }).orderBy('id').select('task_id', 'kind', 'event_id');
    expect(ledger).toEqual([
      { task_id: t1, kind: 'debit', event_id: first.eventId },
      { task_id: t2, kind: 'debit', event_id: other.eventId },
      { task_id: t3, kind: 'rejection', event_id: last.eventId },
    ]);
    expect(await db('quota_accounts').where({ user_id: 'batch-user' }).first('balance')).toEqual({ balance: 0 });
    const published = await db('outbox').orderBy('id').select('event_type', db.raw("payload->>'causationId' as cause"));
    expect(published).toEqual([
      { event_type: 'QuotaDebited', cause: first.eventId },
      { event_type: 'QuotaDebited', cause: other.eventId },
      { event_type: 'QuotaRejected', cause: last.eventId },
    ]);
    // The events before the poison were decided together, in one transaction
    expect((await writers(db, [first.eventId, second.eventId, other.eventId])).size).toBe(1);
  });

  it('tasks: a task brought to its end twice in one batch gets one outcome, and attempts counted whatever their order', async () => {
    const db = await serviceDatabase('tasks', tasksMigrations);
    const runner = await consumer(
      'tasks',
      db,
      new TasksHandlers(loadTasksConfig({}), {} as never, {} as never, { topicPrefix: '' } as never, {} as never).handlers(),
    );
    const [done, running] = [randomUUID(), randomUUID()];
    await produceAsOneBatch('QuotaDebited', [event('QuotaDebited', done, { amount: 1, balanceAfter: 1 })]);
    await waitFor(() => runner.stats.processed === 1, { what: 'the debit applied' });

    const [success, again] = [
      event('GenerationSucceeded', done, { attempt: 2, reportRef: 'reports/a.md', reportBytes: 1024 }),
      event('GenerationSucceeded', done, { attempt: 1, reportRef: 'reports/b.md', reportBytes: 1024 }),
    ];
    const startedSecond = event('GenerationStarted', running, { attempt: 2 });
    const startedFirst = event('GenerationStarted', running, { attempt: 1 });
    await produceAsOneBatch('GenerationSucceeded', [success, success, again, 'poison']);
    await produceAsOneBatch('GenerationStarted', [startedSecond, startedSecond, startedFirst]);

    await waitFor(() => runner.stats.processed === 5 && runner.stats.deadLettered === 1, { what: 'five events applied, the poison dead-lettered' });
    const task = await db('tasks').where({ task_id: done }).first();
    expect(task).toMatchObject({ state: 'SUCCESS' });
    const outcomes = await db('outbox')
      .where({ event_type: 'TaskCompleted' })
      .select(db.raw("payload->>'causationId' as cause"), db.raw("payload->>'reportRef' as report"), 'event_id');
    expect(outcomes).toEqual([{ cause: success.eventId, report: 'reports/a.md', event_id: task.outcome_event_id }]);
    const timeline = await db('task_timeline').where({ task_id: done }).orderBy('id').pluck('event_type');
    expect(timeline).toEqual(['QuotaDebited', 'GenerationSucceeded', 'GenerationSucceeded', 'TaskCompleted']);
    expect(await db('tasks').where({ task_id: running }).first()).toMatchObject({ state: 'RUNNING', attempts: 2 });
    expect(await db('task_timeline').where({ task_id: running }).count({ n: '*' })).toEqual([{ n: '2' }]);
    expect((await writers(db, [startedSecond.eventId, startedFirst.eventId])).size).toBe(1);
  });

  it("generation: a debit heard before its task's request, copies, and the job due once both are known", async () => {
    const db = await serviceDatabase('generation', generationMigrations);
    const started: string[] = [];
    const worker = { startInTransaction: async (_trx: unknown, due: Array<{ task_id: string }>) => void started.push(...due.map((job) => job.task_id)) };
    const handlers = new GenerationHandlers(worker as never, { cleanUp: async () => undefined } as never).handlers();
    const runner = await consumer('generation', db, handlers);
    const [paid, unpaid, refused] = [randomUUID(), randomUUID(), randomUUID()];
    await produceAsOneBatch('QuotaDebited', [event('QuotaDebited', paid, { amount: 1, balanceAfter: 3 })]);
    await produceAsOneBatch('QuotaRejected', [event('QuotaRejected', refused, { reason: 'INSUFFICIENT_QUOTA', balance: 0 })]);
    await waitFor(() => runner.stats.processed === 2, { what: 'the debit and the refusal recorded' });

    const accepted = (taskId: string, reportType: string) => event('TaskAccepted', taskId, { idempotencyKey: null, reportType, input: '{}' });
    const [request, unpaidRequest, lateRequest] = [accepted(paid, 'summary'), accepted(unpaid, 'summary'), accepted(refused, 'summary')];
    const resent = accepted(paid, 'outline');
    await produceAsOneBatch('TaskAccepted', [request, request, resent, unpaidRequest, 'poison', lateRequest]);

    await waitFor(() => runner.stats.processed === 6 && runner.stats.deadLettered === 1, { what: 'the requests recorded, the poison dead-lettered' });
    const jobs = await db('generation_jobs').select('task_id', 'status', 'request_event_id');
    const jobOf = (taskId: string) => jobs.find((job) => job.task_id === taskId);
    expect(jobOf(paid)).toMatchObject({ status: 'scheduled', request_event_id: resent.eventId });
    expect(jobOf(unpaid)).toMatchObject({ status: 'awaiting', request_event_id: unpaidRequest.eventId });
    expect(jobOf(refused)).toMatchObject({ status: 'refused' });
    expect(started).toEqual([paid]); // handed to the worker to start, by the batch that made it due
    expect((await writers(db, [request.eventId, resent.eventId, unpaidRequest.eventId])).size).toBe(1);
  });

  it('notification: one notification per task and outcome, told once, however many copies arrive together', async () => {
    const db = await serviceDatabase('notification', notificationMigrations);
    const runner = await consumer('notification', db, new NotificationHandlers({ wake: () => undefined } as never).handlers());
    const [one, two] = [randomUUID(), randomUUID()];
    const completed = (taskId: string, reportRef: string) => event('TaskCompleted', taskId, { reportRef });
    const [first, later, other] = [completed(one, 'reports/1.md'), completed(one, 'reports/forged.md'), completed(two, 'reports/2.md')];

    await produceAsOneBatch('TaskCompleted', [first, first, later, 'poison', other]);

    await waitFor(() => runner.stats.processed === 3 && runner.stats.deadLettered === 1, { what: 'three outcomes handled, the poison dead-lettered' });
    const notes = await db('notifications').orderBy('id').select('task_id', 'event_id', 'message');
    expect(notes).toEqual([
      { task_id: one, event_id: first.eventId, message: 'Your report is ready: reports/1.md' },
      { task_id: two, event_id: other.eventId, message: 'Your report is ready: reports/2.md' },
    ]);
    const sent = await db('outbox').where({ event_type: 'NotificationSent' }).orderBy('id').select(db.raw("payload->>'causationId' as cause"));
    expect(sent).toEqual([{ cause: first.eventId }, { cause: other.eventId }]);
    expect((await writers(db, [first.eventId, later.eventId])).size).toBe(1);
  });
});
