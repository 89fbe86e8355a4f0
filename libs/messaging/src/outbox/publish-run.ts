import type { EventCodec, IdempotentProducer, Placed } from '@app/kafka';
import { Encoded, encodeRows, isTooLarge, OutboxRow, splitByBytes } from './relay-requests';
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
  /** The next unpublished rows after `after`; the read also marks what Kafka acknowledged since the last one. */
  readAfter(after: string): Promise<OutboxRow[]>;
  acknowledged(rows: Sent[]): void;
  refusedForSize(request: Encoded[], error: unknown): Promise<void>;
}

/** Batches one run reads at most before the loop looks at its other duties (pruning). */
const batchesPerRun = 10;

/**
 * One run: up to `batchesPerRun` batches, in requests under the byte limit. It is pipelined: while
 * a request is with the broker, the next batch is read and encoded. A request is sent only once the
 * one before it is acknowledged, so one is in flight at a time and a failure stops the run with
 * everything before it acknowledged; acknowledged rows are marked by the next read, this run's or
 * the next one's (a relay that stops marks them then). Returns whether rows may be left. Rows after
 * a parked row of the same key are not read, so a key's order holds.
 */
export async function publishRun(codec: EventCodec, producer: IdempotentProducer, duties: RunDuties): Promise<boolean> {
  const inFlight = new OneRequestInFlight(producer, duties);
  let after = '0';
  let full = false;
  for (let batches = 0; batches < batchesPerRun; batches++) {
    const batch = await duties.readAfter(after);
    full = batch.length === duties.batchSize;
    if (batch.length === 0) break;
    after = batch[batch.length - 1].id;
    let encoded: Encoded[];
    try {
      encoded = await encodeRows(codec, batch);
    } catch (error) {
      // The registry failed us: the run ends keeping what it sent; with nothing sent, the round fails.
      if ((await inFlight.settle()) && inFlight.sent === 0) throw error;
      return true;
    }
    for (const request of splitByBytes(encoded, duties.maxBatchBytes())) {
      if (!(await inFlight.settle())) return true;
      inFlight.send(request);
    }
    if (!full) break;
  }
  return !(await inFlight.settle()) || full;
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

  /**
   * Waits for the request in flight; false when it failed and the run stops there. A request the
   * broker refused for its size is the relay's to handle; any other failure with nothing of this run
   * acknowledged is thrown: the round failed.
   */
  async settle(): Promise<boolean> {
    if (!this.sending) return true;
    const { request, failure, places } = this.sending;
    this.sending = undefined;
    const error = await failure;
    if (!error) {
      this.duties.acknowledged(request.map((encoded) => ({ encoded, place: places.get(encoded.message) })));
      this.sent += request.length;
      return true;
    }
    if (isTooLarge(error)) await this.duties.refusedForSize(request, error);
    else if (this.sent === 0) throw error;
    return false;
  }
}
