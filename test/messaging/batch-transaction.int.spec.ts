import { randomUUID } from 'node:crypto';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

describe("a consumer handling a Kafka batch's messages in one transaction", () => {
  let world: MessagingWorld;
  beforeEach(async () => {
    world = await new MessagingWorld().setup();
  });
  afterEach(() => world.teardown());

  const notesOf = (taskId: string) => world.db('effects').where({ event_id: taskId });

  it('handles the messages of one batch in a single transaction, in order', async () => {
    // Given five events of one task already on the topic, so they arrive as one batch
    const taskId = randomUUID();
    const events = [1, 2, 3, 4, 5].map((n) => taskRequested(taskId, String(n)));
    await world.publish(events);

    // When a consumer reads them
    const runner = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.taskId, note: JSON.parse(e.input).note })) },
      { name: 'together' },
    );

    // Then all five are handled, in order, and their inbox rows were written by one transaction
    await waitFor(() => runner.stats.processed === 5, { what: 'five events handled' });
    expect((await notesOf(taskId).orderBy('id')).map((r) => r.note)).toEqual(['1', '2', '3', '4', '5']);
    const writers = await world.db('inbox').where({ consumer: 'together' }).distinct(world.db.raw('xmin::text as xid'));
    expect(writers).toHaveLength(1);
  });

  it('when the batch cannot commit, delivers its messages one by one: the one at fault is dead-lettered, the others handled', async () => {
    // Given a table whose unique note is checked only at commit, and two events of one task with the same note
    await world.db.raw('create table deferred_notes (note text unique deferrable initially deferred)');
    const taskId = randomUUID();
    const [first, second] = [taskRequested(taskId, 'same'), taskRequested(taskId, 'same')];
    await world.publish([first, second]);

    // When a consumer writes each note: the batch's commit fails, though each handler succeeded
    const runner = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('deferred_notes').insert({ note: JSON.parse(e.input).note })) },
      { name: 'commit-fails', maxAttempts: 2 },
    );

    // Then, one by one, the first is handled and the second (its commit refused each time) dead-lettered
    await waitFor(() => runner.stats.processed === 1 && runner.stats.deadLettered === 1, { what: 'one handled, one dead-lettered' });
    expect(await world.db('deferred_notes')).toEqual([{ note: 'same' }]);
    expect(await world.db('inbox').where({ consumer: 'commit-fails' }).pluck('event_id')).toEqual([first.eventId]);
    // And the consumer never crashed on the way
    expect(runner.lastError).toBeUndefined();
  });

  it('handles an event once when copies of it arrive in the same batch, whatever the case of its id', async () => {
    // Given an event, a byte-for-byte copy of it, the same id in capitals, and another event, in one batch
    const taskId = randomUUID();
    const event = taskRequested(taskId, 'once');
    const other = taskRequested(taskId, 'other');
    await world.publish([event, event, { ...event, eventId: event.eventId.toUpperCase() }, other]);

    // When a consumer reads them
    const runner = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.taskId, note: JSON.parse(e.input).note })) },
      { name: 'copies' },
    );

    // Then each event had one effect, and the two copies were counted as duplicates
    await waitFor(() => runner.stats.processed + runner.stats.duplicates === 4, { what: 'four messages delivered' });
    expect((await notesOf(taskId).orderBy('id')).map((r) => r.note)).toEqual(['once', 'other']);
    expect(runner.stats).toMatchObject({ processed: 2, duplicates: 2, deadLettered: 0 });
  });

  it("dead-letters only an event whose id is no uuid, not the batch's first message", async () => {
    // Given, in one batch, an event, a forged one whose eventId the inbox cannot hold, and another event
    const taskId = randomUUID();
    const forged = { ...taskRequested(taskId, 'forged'), eventId: 'not-a-uuid' };
    await world.publish([taskRequested(taskId, 'before'), forged, taskRequested(taskId, 'after')]);

    // When a consumer reads them (the batch's one statement for the inbox rows fails)
    const runner = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.taskId, note: JSON.parse(e.input).note })) },
      { name: 'forged-id', maxAttempts: 1 },
    );

    // Then its neighbours are handled and it alone is dead-lettered, with no effect
    await waitFor(() => runner.stats.processed === 2 && runner.stats.deadLettered === 1, { what: 'two handled, one dead-lettered' });
    expect((await notesOf(taskId).orderBy('id')).map((r) => r.note)).toEqual(['before', 'after']);
    expect(runner.lastError).toBeUndefined();
  });
});
