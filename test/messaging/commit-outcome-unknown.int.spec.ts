import type { Knex } from 'knex';
import { createKnex } from '@app/database';
import { HandlerContext } from '@app/messaging';
import { ConsumerRunner } from '@app/messaging/testing';
import { CommitCutter } from '../support/commit-cutter';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

/**
 * A failover can take the connection away while a COMMIT is on its way: the server may have carried
 * it out, and the client cannot know. The consumer must take that as an outage (pg says
 * "Connection terminated", with no SQLSTATE), try the event again (its batch failed: it is delivered
 * alone), and its inbox must find the event already handled, so that its effect happens once.
 */
describe('a consumer whose COMMIT is cut off, its outcome unknown', () => {
  const world = new MessagingWorld();
  let cutter: CommitCutter;
  let db: Knex;
  let runner: ConsumerRunner;
  const calls = new Map<string, number>();

  const effects = async (eventId: string) => Number((await world.db('effects').where({ event_id: eventId, note: 'commit-cut' }).count('* as n').first())!.n);

  beforeAll(async () => {
    await world.setup();
    const server = new URL(world.databaseUrl);
    cutter = new CommitCutter({ host: server.hostname, port: Number(server.port || 5432) });
    const through = new URL(world.databaseUrl);
    through.port = String(await cutter.start());
    db = createKnex(through.toString(), 2, { quiet: true });
    runner = await world.consumer(
      {
        TaskRequested: async (event: { eventId: string }, { trx }: HandlerContext) => {
          calls.set(event.eventId, (calls.get(event.eventId) ?? 0) + 1);
          await trx('effects').insert({ event_id: event.eventId, note: 'commit-cut' });
        },
      },
      { name: 'commit-cut', db },
    );
  });
  afterAll(async () => {
    await world.teardown();
    await db.destroy();
    await cutter.stop();
  });

  it('takes the lost COMMIT for an outage, tries again, and the inbox lets the event take effect once', async () => {
    // Given the next COMMIT of a transaction that writes effects will be carried out and its answer lost
    cutter.arm('effects');
    const duplicatesBefore = runner.stats.duplicates;

    // When an event arrives
    const event = taskRequested(undefined, 'commit cut');
    await world.publish([event]);

    // Then the COMMIT was cut, and the server carried it out all the same
    await waitFor(() => cutter.cuts === 1, { what: 'the COMMIT to be cut' });
    await waitFor(async () => (await effects(event.eventId)) === 1, { what: 'the committed effect' });

    // And the consumer took the lost connection for an outage, not a bad message: it tried the event
    // again, and the inbox answered that the event was handled already
    await waitFor(() => runner.stats.duplicates > duplicatesBefore, { what: 'the second attempt to find the event in the inbox' });
    const next = taskRequested(undefined, 'after the cut');
    await world.publish([next]);
    await waitFor(async () => (await effects(next.eventId)) === 1, { what: 'the next event handled' });

    // Having handled the first event's effect once: the second attempt found it in the inbox
    expect(await effects(event.eventId)).toBe(1);
    expect(calls.get(event.eventId)).toBe(1);
    expect(runner.stats.deadLettered).toBe(0);
  });
});
