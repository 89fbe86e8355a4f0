import type { KafkaMessage } from 'kafkajs';

/** Messages of one partition, in offset order. */
export interface PartitionMessages {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
}

/** How many messages, from the first, were committed; and the one that failed, when one did. */
export interface PartitionOutcome {
  handled: number;
  failure?: { index: number; error: unknown };
}

type Deliver = (parts: PartitionMessages[]) => Promise<PartitionOutcome[]>;

interface Waiting extends PartitionMessages {
  settle(outcome: Promise<PartitionOutcome>): void;
}

/**
 * kafkajs hands the batches of one fetch to its workers at the same moment, one partition each.
 * Those that go to the same reaction (the key) wait for one turn of the event loop and are
 * delivered together, in one transaction: at saturation a service that reads many partitions, or
 * many topics into one projection, commits once where it committed once per partition. A batch
 * alone is delivered at once. Batches of different reactions never share a transaction: each
 * reaction locks its rows in key order, and two reactions in one transaction could lock in a
 * circle with another instance's.
 */
export class BatchMerger {
  private readonly waiting = new Map<unknown, Waiting[]>();

  constructor(
    private readonly deliver: Deliver,
    private readonly maxMessages: number,
  ) {}

  submit(key: unknown, part: PartitionMessages): Promise<PartitionOutcome> {
    return new Promise((resolve) => {
      const waiting = this.waiting.get(key);
      const entry: Waiting = { ...part, settle: resolve };
      if (waiting) waiting.push(entry);
      else {
        this.waiting.set(key, [entry]);
        setImmediate(() => this.flush(key));
      }
    });
  }

  private flush(key: unknown): void {
    const waiting = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    // Merged up to a bound: a bigger transaction holds its rows' locks longer for little gain.
    for (let start = 0; start < waiting.length;) {
      let end = start + 1;
      let count = waiting[start].messages.length;
      while (end < waiting.length && count + waiting[end].messages.length <= this.maxMessages) count += waiting[end++].messages.length;
      const group = waiting.slice(start, end);
      const outcomes = this.deliver(group);
      group.forEach((entry, i) => entry.settle(outcomes.then((all) => all[i])));
      start = end;
    }
  }
}
