import { PlatformError } from '@app/failures';
import { readDeadLetters, redriveProgress, RedriveOptions, requestRedrive } from '@app/dead-letters';
import { redriveRequestTopic } from '@app/catalogue';
import { MessagingWorld, taskRequested } from './support/messaging-world';
import { waitFor } from './support/wait-for';

describe('re-driving dead letters', () => {
  const world = new MessagingWorld();
  let broken = true;
  let runner: Awaited<ReturnType<MessagingWorld['consumer']>>;
  const effects = (eventId: string) => world.db('effects').where({ event_id: eventId });

  beforeAll(async () => {
    await world.setup();
    // A handler that refuses everything while "broken" (the cause an operator fixes), and one event for good
    runner = await world.consumer(
      {
        TaskRequested: async (e, { trx }) => {
          const input = JSON.parse(e.input) as { note: string };
          if (broken || input.note === 'always bad') throw new PlatformError('INVALID_EVENT', `cannot handle ${input.note}`);
          await trx('effects').insert({ event_id: e.eventId, note: 'redriven' });
        },
      },
      { name: 'redrive' },
    );
  });
  afterAll(() => world.teardown());

  /** Asks the consumer's service to re-drive, and waits until it has logged every letter it took. */
  async function redrive(groupId: string, options: RedriveOptions) {
    const result = await requestRedrive(world.kafka, groupId, options);
    if (result.requestId) {
      const requestId = result.requestId;
      await waitFor(async () => (await redriveProgress(world.kafka, groupId, requestId)).length === result.redriven.length, {
        what: 'the service to log every letter of the request',
      });
    }
    return result;
  }

  it('processes a dead letter once after its cause is fixed, however often it is re-driven, and parks one that fails again', async () => {
    // Given two events dead-lettered while the handler is broken
    const fixable = taskRequested(undefined, 'fixable');
    const hopeless = taskRequested(undefined, 'always bad');
    const producer = world.kafka.producer();
    await producer.connect();
    for (const e of [fixable, hopeless]) {
      await producer.send({
        topic: world.codec.topicFor('TaskRequested'),
        messages: [{ key: e.taskId, value: await world.codec.encode(e), headers: { eventId: e.eventId } }],
      });
    }
    await producer.disconnect();
    await waitFor(() => runner.stats.deadLettered === 2, { what: 'two dead letters' });

    // When the cause is fixed and a dry run is asked for
    broken = false;
    expect((await redrive(runner.groupId, { by: 'tester', dryRun: true, error: 'HANDLER_FAILED' })).redriven).toEqual([]);
    const dry = await redrive(runner.groupId, {
      by: 'tester',
      dryRun: true,
      error: 'INVALID_EVENT',
      topic: world.codec.topicFor('TaskRequested'),
    });
    // Then it lists both and re-drives nothing
    expect(dry.redriven.map((l) => l.eventId).sort()).toEqual([fixable.eventId, hopeless.eventId].sort());
    expect(runner.stats.processed).toBe(0);

    // When they are re-driven for real
    const first = await redrive(runner.groupId, { by: 'tester', rate: 50 });
    expect(first.redriven).toHaveLength(2);

    // Then the fixable one is processed once, with its original event id
    await waitFor(async () => (await effects(fixable.eventId)).length === 1, { what: 'the re-driven event to be processed' });
    // And the hopeless one fails again and comes back as a parked dead letter
    await waitFor(async () => (await readDeadLetters(world.kafka, runner.groupId)).some((l) => l.parked && l.eventId === hopeless.eventId), {
      what: 'the parked dead letter',
    });

    // When everything is re-driven a second time
    const second = await redrive(runner.groupId, { by: 'someone else' });
    // Then nothing is sent again: the first two are logged as re-driven, the new one is parked
    expect(second.redriven).toEqual([]);
    expect(second.skipped.map((s) => s.why)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^already re-driven by tester at /), 'parked: it failed again after a re-drive']),
    );
    // And even a forced re-drive of the parked one changes nothing for the fixed event
    await redrive(runner.groupId, { by: 'tester', includeParked: true });
    expect(await effects(fixable.eventId)).toHaveLength(1);
  });

  it('takes from a request only which letters to handle: a value it carries, or junk, has no effect', async () => {
    // Given a fresh dead letter
    const hopeless = taskRequested(undefined, 'always bad');
    const forged = taskRequested(undefined, 'forged');
    const producer = world.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: world.codec.topicFor('TaskRequested'),
      messages: [{ key: hopeless.taskId, value: await world.codec.encode(hopeless), headers: { eventId: hopeless.eventId } }],
    });
    await waitFor(async () => (await readDeadLetters(world.kafka, runner.groupId)).some((l) => l.eventId === hopeless.eventId), { what: 'the dead letter' });
    const letter = (await readDeadLetters(world.kafka, runner.groupId)).find((l) => l.eventId === hopeless.eventId)!;

    // When whoever may ask writes junk, then a request for a letter that does not exist carrying an event of its own
    const forgedValue = (await world.codec.encode(forged)).toString('base64');
    await producer.send({
      topic: redriveRequestTopic(runner.groupId),
      messages: [
        { value: 'not json at all' },
        { value: JSON.stringify({ requestId: 'r-junk', by: 42, ids: 'all' }) },
        {
          value: JSON.stringify({
            requestId: 'r-forged',
            by: 'mallory',
            ids: ['0:99999'],
            value: forgedValue,
            originalTopic: world.codec.topicFor('TaskRequested'),
          }),
        },
      ],
    });
    await producer.disconnect();
    // And then asks properly for the real letter
    const asked = await redrive(runner.groupId, { by: 'tester', ids: [letter.id] });

    // Then only the real letter was handled again (and failed again), the requests before it were read and did nothing
    expect(asked.redriven.map((l) => l.id)).toEqual([letter.id]);
    expect((await redriveProgress(world.kafka, runner.groupId, asked.requestId!)).map((e) => e.outcome)).toEqual(['dead-lettered']);
    expect(await redriveProgress(world.kafka, runner.groupId, 'r-forged')).toEqual([]);
    expect(await effects(forged.eventId)).toEqual([]);
    expect(await world.db('inbox').where({ event_id: forged.eventId })).toEqual([]);
  });

  it('finishes a re-drive whose consumer stopped halfway once it starts again, each letter handled once', async () => {
    // Given five letters of a consumer whose cause is then fixed
    let resumeBroken = true;
    const handlers = {
      TaskRequested: async (e: { eventId: string }, { trx }: { trx: import('knex').Knex.Transaction }) => {
        if (resumeBroken) throw new PlatformError('INVALID_EVENT', 'not yet');
        await trx('effects').insert({ event_id: e.eventId, note: 'resumed' });
      },
    };
    const first = await world.consumer(handlers, { name: 'resume' });
    const events = Array.from({ length: 5 }, (_, i) => taskRequested(undefined, `resume-${i}`));
    await world.publish(events);
    // (the group reads the topic from its start: earlier tests' events are dead-lettered too)
    const ours = new Set(events.map((e) => e.taskId));
    const lettersOfOurs = async () => (await readDeadLetters(world.kafka, first.groupId)).filter((l) => ours.has(l.key?.toString() ?? ''));
    await waitFor(async () => (await lettersOfOurs()).length === 5, { what: 'five dead letters' });
    resumeBroken = false;

    // When a slow re-drive of them is asked for, and its consumer stops after the first letter
    const ids = (await lettersOfOurs()).map((l) => l.id);
    const asked = await requestRedrive(world.kafka, first.groupId, { by: 'tester', ids, rate: 2 });
    expect(asked.redriven).toHaveLength(5);
    await waitFor(async () => (await redriveProgress(world.kafka, first.groupId, asked.requestId!)).length >= 1, { what: 'the first letter re-driven' });
    await first.stop();
    const before = (await redriveProgress(world.kafka, first.groupId, asked.requestId!)).length;
    expect(before).toBeLessThan(5);

    // Then once a consumer of the group starts again, the request is finished: every letter logged, each handled once
    const second = await world.consumer(handlers, { name: 'resume' });
    await waitFor(async () => (await redriveProgress(world.kafka, second.groupId, asked.requestId!)).length === 5, {
      what: 'the rest of the request handled',
      timeoutMs: 60_000,
    });
    // (the first test's consumer, fixed by now, reads the same topic in a group of its own: its effects are its own)
    for (const e of events) expect(await effects(e.eventId).where({ note: 'resumed' })).toHaveLength(1);
  });
});
