import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { defaults } from '@app/config';
import { DomainEvent, EventType, newEvent } from '@app/events';
import { EventCodec } from '@app/kafka';
import { readDeadLetters } from '@app/dead-letters';
import { Platform } from '../support/platform';
import { asAdmin } from '../support/tokens';
import { waitFor } from '../support/wait-for';

/**
 * Consumers trust no payload: events forged onto the topics (here with a plain producer, as anyone
 * who can write a topic could) must not move money, start work, or rewrite a finished task.
 */
describe('forged events', () => {
  const platform = new Platform();
  let codec: EventCodec;
  beforeAll(async () => {
    await platform.start();
    codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
  });
  afterAll(() => platform.stop());

  async function forge(event: DomainEvent, onTopicOf: EventType = event.eventType): Promise<void> {
    const producer = platform.kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: codec.topicFor(onTopicOf), acks: -1, messages: [{ key: event.taskId, value: await codec.encode(event) }] });
    } finally {
      await producer.disconnect();
    }
  }
  const failure = (taskId: string, userId: string) =>
    newEvent(
      'GenerationFailed',
      { attempts: 1, errorClass: 'PERMANENT', errorCode: 'MODEL_REJECTED', reason: 'forged' },
      { taskId, userId, correlationId: randomUUID(), causationId: null },
      'generation',
    );

  it("refunds nobody for a forged GenerationFailed on another user's completed task that names a third user", async () => {
    // Given the victim's task, completed and charged
    const { taskId } = (await platform.submit('forge-victim')).body;
    expect(await platform.settled(taskId)).toMatchObject({ state: 'SUCCESS' });

    // When a GenerationFailed is forged for it, naming a third user
    const forged = failure(taskId, 'forge-beneficiary');
    await forge(forged);
    await platform.consumersCaughtUp();

    // Then nobody is refunded, and the victim's task is still a success
    expect(await platform.quota('forge-beneficiary')).toMatchObject({ balance: 10, refunded: 0 });
    expect(await platform.quota('forge-victim')).toMatchObject({ balance: 9, debited: 1, refunded: 0 });
    const task = await platform.task(taskId);
    expect(task.state).toBe('SUCCESS');
    expect(task.timeline.filter((e: { eventType: string }) => e.eventType === 'QuotaRefunded')).toEqual([]);
  });

  it('refunds nothing for a forged GenerationFailed on a task that was never debited', async () => {
    const forged = failure(randomUUID(), 'forge-stranger');
    await forge(forged);
    await platform.consumersCaughtUp();
    expect(await platform.quota('forge-stranger')).toMatchObject({ balance: 10, refunded: 0 });
  });

  it("dead-letters a value of one event type written to another type's topic (TOPIC_MISMATCH), and nothing runs", async () => {
    // When a TaskAccepted, which would start work, is written to quota-debited
    const taskId = randomUUID();
    const smuggled = newEvent(
      'TaskAccepted',
      { idempotencyKey: null, reportType: 'summary', input: '{}' },
      { taskId, userId: 'external:forge-smuggler', correlationId: randomUUID(), causationId: null },
      'tasks',
    );
    await forge(smuggled, 'QuotaDebited');

    // Then the consumers of quota-debited dead-letter it as TOPIC_MISMATCH
    for (const group of ['tasks', 'generation']) {
      const letters = await waitFor(
        async () => {
          const found = (await readDeadLetters(platform.kafka, `${platform.env.topicPrefix}${group}`)).filter((l) => l.errorCode === 'TOPIC_MISMATCH');
          return found.length > 0 && found;
        },
        { what: `${group} to dead-letter the smuggled value` },
      );
      expect(letters[0]).toMatchObject({ originalTopic: codec.topicFor('QuotaDebited') });
    }
    // And no task, debit or job came of it
    await platform.consumersCaughtUp();
    expect((await platform.get('tasks', '/tasks?userId=external:forge-smuggler')).items).toEqual([]);
    expect(await platform.quota('external:forge-smuggler')).toMatchObject({ debited: 0 });
    expect((await fetch(`${platform.url('generation')}/generations/${taskId}`, { headers: await asAdmin() })).status).toBe(404);
  });

  it("takes no TaskRequested as accepted because it says producer: tasks; quota acts only on the tasks service's TaskAccepted", async () => {
    // Given a request adopted under a key
    const first = newEvent(
      'TaskRequested',
      { idempotencyKey: 'forge-key', reportType: 'summary', input: '{"n":1}' },
      { taskId: randomUUID(), userId: 'external:forge-claimer', correlationId: randomUUID(), causationId: null },
      'partner',
    );
    await forge(first);
    await platform.settled(first.taskId);

    // When another request reuses the key with other content, claiming to come from the tasks service
    const pretender = newEvent(
      'TaskRequested',
      { idempotencyKey: 'forge-key', reportType: 'summary', input: '{"n":2}' },
      { taskId: randomUUID(), userId: 'external:forge-claimer', correlationId: randomUUID(), causationId: null },
      'tasks',
    );
    await forge(pretender);
    await platform.consumersCaughtUp();

    // Then it is rejected like any outside request, and quota charged only the first
    expect(await platform.quota('external:forge-claimer')).toMatchObject({ debited: 1 });
    expect((await platform.get('tasks', '/tasks?userId=external:forge-claimer')).items.map((t: { taskId: string }) => t.taskId)).toEqual([first.taskId]);
  });

  it('completes a request the tasks service accepted under the old scheme (on task-requested) and no one acted on yet', async () => {
    // Given tasks' own state from before the upgrade: the task and its request in the timeline, and
    // the request on task-requested, written by tasks, with no TaskAccepted anywhere
    const legacy = newEvent(
      'TaskRequested',
      { idempotencyKey: null, reportType: 'summary', input: '{"legacy":true}' },
      { taskId: randomUUID(), userId: 'legacy-user', correlationId: randomUUID(), causationId: null },
      'tasks',
    );
    const tasksDb = new Client({ connectionString: platform.env.databaseUrl('tasks') });
    await tasksDb.connect();
    try {
      await tasksDb.query(`insert into tasks (task_id, user_id, report_type, input, state, facts) values ($1, $2, 'summary', $3, 'QUEUED', $4)`, [
        legacy.taskId,
        legacy.userId,
        '{"legacy":true}',
        JSON.stringify({
          requested: true,
          debited: false,
          rejected: false,
          succeeded: false,
          generationFailed: false,
          refunded: false,
          attemptsStarted: 0,
          attemptsRetried: 0,
          attemptsFinal: 0,
          rejectionReason: null,
          failureReason: null,
          failureCode: null,
          reportRef: null,
        }),
      ]);
      await tasksDb.query(
        `insert into task_timeline (task_id, event_id, event_type, occurred_at, producer, payload) values ($1, $2, 'TaskRequested', now(), 'tasks', $3)`,
        [legacy.taskId, legacy.eventId, JSON.stringify(legacy)],
      );
    } finally {
      await tasksDb.end();
    }
    await forge(legacy);

    // Then tasks accepts it on task-accepted, and it completes, charged once
    const task = await platform.settled(legacy.taskId);
    expect(task.state).toBe('SUCCESS');
    expect(task.timeline.map((e: { eventType: string }) => e.eventType).slice(0, 2)).toEqual(['TaskRequested', 'TaskAccepted']);
    expect(await platform.quota('legacy-user')).toMatchObject({ debited: 1 });
  });
});
