import { EventCodec, IdempotentProducer, isDestinationRefused, isTooLarge, Placed } from '@app/kafka';
import { Encoded, encodeRows, isCopyRequest, OutboxRow, requestsOf } from './relay-requests';
import { Sending, sendRequest } from './send-request';

/** A row Kafka acknowledged, waiting for its mark. */
export interface Sent {
  encoded: Encoded;
  place?: Placed;
}

/** What a run asks of its relay, which holds the lock's session and the rows waiting for their mark. */
export interface RunDuties {
  batchSize: number;
  maxBatchBytes(): number;
  /** The first unpublished rows but `inFlight`; the read also marks what Kafka acknowledged since the last one. */
  read(inFlight: string[]): Promise<OutboxRow[]>;
  /** Resolves at the first commit of outbox rows in this process after the call. */
  nextCommit(): Promise<void>;
  acknowledged(rows: Sent[]): void;
  refusedForSize(request: Encoded[], error: unknown): Promise<void>;
  /** Copies whose destination the broker refused: parked, to be tried again later; the run goes on. */
  refusedDestination(request: Encoded[], error: unknown): Promise<void>;
}

/**
 * Reads one run makes at most before the loop looks at its other duties (pruning), and before a
 * read starts again from the lowest id: a row whose transaction took its id early and committed
 * late is found by the next run.
 */
const readsPerRun = 20;

/**
 * One run: reads in id order, each sent in requests under the byte limit, one request with the
 * broker at a time, so that a failure stops the run with everything before it acknowledged and a
 * key's order holds. It never idles while rows wait: while a request is with the broker the next
 * rows are read and encoded — at once after a full batch, and as soon as this process commits new
 * ones otherwise — leaving out the rows in flight, so that none is sent twice. The run ends when
 * its last request is acknowledged with nothing new committed meanwhile. Acknowledged rows are
 * marked by the next read, this run's or the next one's (a relay that stops marks them then).
 * Returns whether rows may be left. Rows after a parked row of the same key and destination are not read.
 */
export async function publishRun(codec: EventCodec, producer: IdempotentProducer, duties: RunDuties): Promise<boolean> {
  const inFlight = new OneRequestInFlight(producer, duties);
  for (let reads = 0; reads < readsPerRun; reads++) {
    const committed = duties.nextCommit();
    const batch = await duties.read(inFlight.ids());
    if (batch.length > 0) {
      let encoded: Encoded[];
      try {
        encoded = await encodeRows(codec, batch);
      } catch (error) {
        // The registry failed us: the run ends keeping what it sent; with nothing sent, the round fails.
        if ((await inFlight.settle()) && inFlight.sent === 0) throw error;
        return true;
      }
      for (const request of requestsOf(encoded, duties.maxBatchBytes())) {
        if (!(await inFlight.settle())) return true;
        inFlight.send(request);
      }
      if (batch.length === duties.batchSize) continue;
    }
    if (!inFlight.busy()) return false;
    // All there was is with the broker: read again as soon as more is committed, or end once it is acknowledged.
    if ((await Promise.race([inFlight.answered().then(() => 'answered'), committed.then(() => 'committed')])) === 'committed') continue;
    return !(await inFlight.settle());
  }
  await inFlight.settle();
  return true;
}

/** The run's requests, one with the broker at a time. */
class OneRequestInFlight {
  /** Rows this run had acknowledged: with none, a failure is the round's. */
  sent = 0;
  private sending: Sending | undefined;

  constructor(
    private readonly producer: IdempotentProducer,
    private readonly duties: RunDuties,
  ) {}

  send(request: Encoded[]): void {
    this.sending = sendRequest(this.producer, request);
  }

  busy(): boolean {
    return this.sending !== undefined;
  }

  /** The ids of the rows with the broker, which a read leaves out. */
  ids(): string[] {
    return this.sending?.request.map((encoded) => encoded.row.id) ?? [];
  }

  /** Resolves once the request in flight is answered, either way (at once with none). */
  answered(): Promise<unknown> {
    return this.sending?.failure ?? Promise.resolve();
  }

  /**
   * Waits for the request in flight; false when it failed and the run stops there. A request the
   * broker refused for its size is the relay's to handle; copies refused by their destination are
   * parked and the run goes on (another destination's rows are not theirs to hold back); any other
   * failure with nothing of this run acknowledged is thrown: the round failed.
   */
  async settle(): Promise<boolean> {
    if (!this.sending) return true;
    const { request, failure, places } = this.sending;
    const error = await failure;
    this.sending = undefined;
    if (!error) {
      this.duties.acknowledged(request.map((encoded) => ({ encoded, place: places.get(encoded.message) })));
      this.sent += request.length;
      return true;
    }
    if (isCopyRequest(request) && isDestinationRefused(error)) {
      await this.duties.refusedDestination(request, error);
      return true;
    }
    if (isTooLarge(error)) await this.duties.refusedForSize(request, error);
    else if (this.sent === 0) throw error;
    return false;
  }
}
