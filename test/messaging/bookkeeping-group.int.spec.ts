import type { HandlerContext } from '@app/messaging';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

/**
 * A service's bookkeeping is read in a group of its own (consumerGroupsOf). The first time that group
 * starts, the topics it takes over were read so far by the service's own group: it goes on from there.
 */
describe('a bookkeeping group taking topics over from its service’s own group', () => {
  const world = new MessagingWorld();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('starts where the own group left each topic, reads nothing twice, and shares its inbox and dead letters', async () => {
    // Given the service's own group that handled five requests, and three more published while it is down
    const handled: string[] = [];
    const handlers = {
      TaskRequested: async (event: { eventId: string }, { trx }: HandlerContext) => void (await trx.raw('select 1'), handled.push(event.eventId)),
    };
    const own = await world.consumer(handlers, { name: 'split' });
    const before = Array.from({ length: 5 }, (_, i) => taskRequested(undefined, `before ${i}`));
    await world.publish(before);
    await waitFor(() => handled.length === 5, { what: 'the own group to handle five' });
    await own.stop();
    const after = Array.from({ length: 3 }, (_, i) => taskRequested(undefined, `after ${i}`));
    await world.publish(after);

    // When the topic moves to the bookkeeping group, which fetches lazily
    const bookkeeping = await world.consumer(handlers, {
      name: 'split',
      group: 'split.bookkeeping',
      reads: ['TaskRequested'],
      fetch: { minBytes: 65_536, maxWaitMs: 200 },
    });

    // Then it handles the three new ones, and meets none of the five again (from the beginning it would have)
    await waitFor(() => handled.length === 8, { what: 'the three new requests handled' });
    expect(handled.slice(5).sort()).toEqual(after.map((e) => e.eventId).sort());
    expect(bookkeeping.stats).toMatchObject({ processed: 3, duplicates: 0 });
    expect(bookkeeping.groupId).toBe(`${world.env.topicPrefix}split.bookkeeping`);
    expect(bookkeeping.deadLetterTopic).toBe(own.deadLetterTopic);
    expect(bookkeeping.topics()).toEqual([world.codec.topicFor('TaskRequested')]);

    // And a stale copy of an old event reaching it is a duplicate by the shared inbox, not handled again
    await world.publish([before[0]]);
    await waitFor(() => bookkeeping.stats.duplicates === 1, { what: 'the old event met as a duplicate' });
    expect(handled).toHaveLength(8);
  });
});
