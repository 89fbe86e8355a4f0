import type { EventCodec, IdempotentProducer } from '@app/kafka';
import type { DomainEvent } from '@app/events';
import { publishRun, RunDuties, Sent } from './publish-run';
import type { OutboxRow } from './relay-requests';

const row = (id: number): OutboxRow => ({
  id: String(id),
  event_type: 'TaskAccepted',
  message_key: `task-${id}`,
  payload: { eventType: 'TaskAccepted' } as unknown as DomainEvent,
  headers: { eventId: `event-${id}` },
  topic: null,
});

const codec = { topicPrefix: '', topicFor: () => 'task-accepted', encode: async () => Buffer.from('x') } as unknown as EventCodec;

/** A broker whose answers the test gives, one request at a time. */
class HeldBroker {
  readonly requests: string[][] = [];
  private answers: Array<(error?: Error) => void> = [];

  readonly producer = {
    sendBatchPlaced: ({ topicMessages }: { topicMessages: Array<{ messages: Array<{ key: string }> }> }) => {
      this.requests.push(topicMessages.flatMap((t) => t.messages.map((m) => m.key.replace('task-', ''))));
      return new Promise((resolve, reject) => this.answers.push((error) => (error ? reject(error) : resolve(new Map()))));
    },
  } as unknown as IdempotentProducer;

  answer(error?: Error): void {
    this.answers.shift()!(error);
  }
}

function commitSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** An outbox in memory, the relay's duties over it, and the commits a test makes. */
class Outbox {
  unpublished: OutboxRow[] = [];
  readonly reads: string[][] = [];
  readonly acknowledged: string[] = [];
  readonly parkedForDestination: string[] = [];
  private commit = commitSignal();

  duties(batchSize = 100): RunDuties {
    return {
      batchSize,
      maxBatchBytes: () => 900_000,
      read: async (inFlight) => {
        this.reads.push(inFlight);
        return this.unpublished.filter((r) => !inFlight.includes(r.id)).slice(0, batchSize);
      },
      nextCommit: () => this.commit.promise,
      acknowledged: (rows: Sent[]) => {
        const ids = rows.map((r) => r.encoded.row.id);
        this.acknowledged.push(...ids);
        this.unpublished = this.unpublished.filter((r) => !ids.includes(r.id));
      },
      refusedForSize: async () => undefined,
      refusedDestination: async (request) => {
        const ids = request.map((e) => e.row.id);
        this.parkedForDestination.push(...ids);
        this.unpublished = this.unpublished.filter((r) => !ids.includes(r.id));
      },
    };
  }

  committed(...ids: number[]): void {
    this.committedRows(ids.map(row));
  }

  committedRows(rows: OutboxRow[]): void {
    this.unpublished.push(...rows);
    const commit = this.commit;
    this.commit = commitSignal();
    commit.resolve();
  }
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('a relay run', () => {
  it('reads rows committed while a request is with the broker, and sends them once it is acknowledged', async () => {
    // Given a row sent and not yet acknowledged
    const outbox = new Outbox();
    const broker = new HeldBroker();
    outbox.committed(1);
    const run = publishRun(codec, broker.producer, outbox.duties());
    await settled();
    expect(broker.requests).toEqual([['1']]);

    // When two more are committed meanwhile
    outbox.committed(2, 3);
    await settled();
    // Then they are read at once, leaving out the row in flight, but not sent before it is acknowledged
    expect(outbox.reads).toEqual([[], ['1']]);
    expect(broker.requests).toEqual([['1']]);

    // When the broker acknowledges it, the next request follows; when that one is acknowledged with nothing new, the run ends
    broker.answer();
    await settled();
    expect(broker.requests).toEqual([['1'], ['2', '3']]);
    broker.answer();
    await expect(run).resolves.toBe(false);
    expect(outbox.acknowledged).toEqual(['1', '2', '3']);
  });

  it('reads the next batch at once after a full one, and stops at the first failed request keeping what was acknowledged', async () => {
    const outbox = new Outbox();
    const broker = new HeldBroker();
    outbox.committed(1, 2, 3, 4, 5);
    const run = publishRun(codec, broker.producer, outbox.duties(2));
    await settled();
    // A full batch is with the broker and the next one already read
    expect(broker.requests).toEqual([['1', '2']]);
    expect(outbox.reads).toEqual([[], ['1', '2']]);

    broker.answer();
    await settled();
    broker.answer(new Error('the leader moved'));
    // The run ends with more to do: what failed is read again by the next one
    await expect(run).resolves.toBe(true);
    expect(outbox.acknowledged).toEqual(['1', '2']);
    expect(outbox.unpublished.map((r) => r.id)).toEqual(['3', '4', '5']);
  });

  it('fails the round when its first request fails', async () => {
    const outbox = new Outbox();
    const broker = new HeldBroker();
    outbox.committed(1);
    const run = publishRun(codec, broker.producer, outbox.duties());
    await settled();
    broker.answer(new Error('no broker'));
    await expect(run).rejects.toThrow('no broker');
  });

  it("sends a destination's copies apart and parks them when it refuses them, while the event topics' rows go on", async () => {
    // Given a batch of rows for the event topics with a partner's copies among them
    const outbox = new Outbox();
    const broker = new HeldBroker();
    const copy = (id: number): OutboxRow => ({ ...row(id), topic: 'partner.gone.task-completed' });
    outbox.committedRows([row(1), copy(2), row(3), copy(4)]);
    const run = publishRun(codec, broker.producer, outbox.duties());
    await settled();
    // Then the event topics' rows travel first, the copies in a request of their own
    expect(broker.requests).toEqual([['1', '3']]);
    broker.answer();
    await settled();
    expect(broker.requests).toEqual([
      ['1', '3'],
      ['2', '4'],
    ]);

    // When the partner's topic is refused (its grant withdrawn)
    broker.answer(Object.assign(new Error('Not authorized to access topics'), { type: 'TOPIC_AUTHORIZATION_FAILED' }));
    // Then its copies are parked, the run ends having done all it could, and nothing else waited
    await expect(run).resolves.toBe(false);
    expect(outbox.parkedForDestination).toEqual(['2', '4']);
    expect(outbox.acknowledged).toEqual(['1', '3']);
  });

  it('fails the round when an event topic is refused: that is no copy to set aside', async () => {
    const outbox = new Outbox();
    const broker = new HeldBroker();
    outbox.committed(1);
    const run = publishRun(codec, broker.producer, outbox.duties());
    await settled();
    broker.answer(Object.assign(new Error('Not authorized to access topics'), { type: 'TOPIC_AUTHORIZATION_FAILED' }));
    await expect(run).rejects.toThrow('Not authorized');
    expect(outbox.parkedForDestination).toEqual([]);
  });
});
