import { randomUUID } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { PlatformError } from '@app/failures';
import { BatchContext, setBased } from '@app/messaging';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

/** kafkajs hands a fetch's batches to its workers one partition each; a reaction's batches share one transaction. */
describe("a consumer merging several partitions' batches for one reaction", () => {
  let world: MessagingWorld;
  beforeEach(async () => {
    world = await new MessagingWorld().setup();
  });
  afterEach(() => world.teardown());

  /**
   * Requests keyed by task, the tasks chosen so that the producer's partitioner puts them on the
   * topic's three partitions in turn (twelve random keys miss one partition about once in fifty runs).
   */
  async function requestsOnEveryPartition(notes: string[]): Promise<DomainEvent[]> {
    const partitionOf = Partitioners.DefaultPartitioner();
    const partitionMetadata = [0, 1, 2].map((partitionId) => ({ partitionId, leader: 0, replicas: [0], isr: [0], partitionErrorCode: 0 }));
    const taskIdOnPartition = (partition: number): string => {
      for (;;) {
        const taskId = randomUUID();
        if (partitionOf({ topic: 'any', partitionMetadata, message: { key: taskId, value: null } }) === partition) return taskId;
      }
    };
    const events = notes.map((note, i) => taskRequested(taskIdOnPartition(i % 3), note));
    await world.publish(events);
    return events;
  }

  const effects = () => world.db('effects').orderBy('id').pluck('note');
  const noteOf = (event: DomainEvent) => JSON.parse((event as { input: string }).input).note as string;

  it('handles the batches of every partition in one transaction and one call of the reaction', async () => {
    // Given requests already on all three partitions of the topic
    const notes = Array.from({ length: 12 }, (_, i) => `n${i}`);
    await requestsOnEveryPartition(notes);

    // When a consumer that takes three partitions at once reads them with a set-based reaction
    const calls: number[] = [];
    const runner = await world.consumer(
      {
        TaskRequested: setBased<'TaskRequested'>(async (events, { trx }: BatchContext) => {
          calls.push(events.length);
          await trx('effects').insert(events.map((e) => ({ event_id: e.taskId, note: noteOf(e) })));
        }),
      },
      { name: 'merged', partitionsConcurrently: 3 },
    );

    // Then each is handled once, all by one call, and their inbox rows by one transaction
    await waitFor(() => runner.stats.processed === 12, { what: 'twelve events handled' });
    expect((await effects()).sort()).toEqual([...notes].sort());
    expect(calls).toEqual([12]);
    const partitionsRead = await world.db('inbox').where({ consumer: 'merged' }).countDistinct({ n: 'partition' });
    expect(Number(partitionsRead[0].n)).toBe(3);
    const writers = await world.db('inbox').where({ consumer: 'merged' }).distinct(world.db.raw('xmin::text as xid'));
    expect(writers).toHaveLength(1);
  });

  it('when the shared transaction fails, each partition goes on its own: the poison alone is dead-lettered, every other event handled once', async () => {
    // Given requests on every partition, one of which the reaction refuses for good
    const notes = Array.from({ length: 12 }, (_, i) => (i === 5 ? 'poison' : `n${i}`));
    const events = await requestsOnEveryPartition(notes);
    const poison = events[5];

    // When a consumer merging the partitions reads them
    const runner = await world.consumer(
      {
        TaskRequested: setBased<'TaskRequested'>(async (batch, { trx }: BatchContext) => {
          if (batch.some((e) => noteOf(e) === 'poison')) throw new PlatformError('INVALID_EVENT', 'poison');
          await trx('effects').insert(batch.map((e) => ({ event_id: e.taskId, note: noteOf(e) })));
        }),
      },
      { name: 'merged-poison', partitionsConcurrently: 3, maxAttempts: 2 },
    );

    // Then the eleven others are handled, once each, the poison dead-lettered, and it has no inbox row
    await waitFor(() => runner.stats.processed === 11 && runner.stats.deadLettered === 1, { what: 'eleven handled, one dead-lettered' });
    expect((await effects()).sort()).toEqual(notes.filter((n) => n !== 'poison').sort());
    expect(await world.db('inbox').where({ consumer: 'merged-poison', event_id: poison.eventId })).toEqual([]);
    expect(await world.messageCount(runner.deadLetterTopic)).toBe(1);
    expect(runner.lastError).toBeUndefined();
  });
});
