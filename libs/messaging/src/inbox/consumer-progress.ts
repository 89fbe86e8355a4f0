import { letGo } from '@app/failures';
import type { Logger } from '@nestjs/common';
import type { Admin, Kafka } from 'kafkajs';
import { consumerLag, consumerStalledSeconds } from '@app/metrics';
import { countRequests } from '@app/kafka';

export interface ProgressOptions {
  /** How often the broker is asked. */
  intervalMs: number;
  /** Lag with no progress for this long is a stall. */
  stallAfterMs: number;
}

/** One assigned partition as last read from the broker. */
interface PartitionSeen {
  committed: string;
  lag: number;
  /** Since when it has had lag at this committed offset; undefined while it has none. */
  stuckSince?: number;
}

/**
 * A consumer's progress as the broker sees it: for each partition this instance holds, the
 * high-water mark less the group's committed offset, read on a timer rather than when a message
 * finishes — a consumer that finishes nothing would otherwise report its last lag for ever. A
 * partition with lag whose committed offset does not move is stalled; /health and a metric say so.
 */
export class ConsumerProgress {
  private admin?: Promise<Admin>;
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private seen = new Map<string, PartitionSeen>();

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
    private readonly assigned: () => Record<string, number[]>,
    private readonly options: ProgressOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.reading ??= this.read()
        .catch((error) => this.logger.debug?.(`reading the consumer's progress failed: ${(error as Error).message}`))
        .finally(() => (this.reading = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the timer and disconnects the client once a read in flight is done: a client still
   * connecting when it stopped was once left connected, and kept a test run from exiting.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.reading;
    const admin = this.admin;
    this.admin = undefined;
    const closing = letGo("the consumer's progress client is closed whatever the broker answers", this.logger);
    await (await admin?.catch(closing))?.disconnect().catch(closing);
  }

  /** Asks the broker once; exported for tests that must not wait for the timer. */
  async read(now = Date.now()): Promise<void> {
    const assignment = this.assigned();
    const topics = Object.keys(assignment).filter((topic) => assignment[topic].length > 0);
    const next = new Map<string, PartitionSeen>();
    if (topics.length > 0) {
      const admin = await this.connectedAdmin();
      const committed = await admin.fetchOffsets({ groupId: this.groupId, topics });
      for (const topic of topics) {
        const ends = await admin.fetchTopicOffsets(topic);
        for (const partition of assignment[topic]) {
          const end = ends.find((e) => e.partition === partition);
          if (!end) continue;
          const offset = committed.find((c) => c.topic === topic)?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
          // Nothing committed yet: the group starts from the earliest offset the topic still holds.
          const from = offset === '-1' ? end.low : offset;
          const lag = Math.max(0, Number(end.high) - Number(from));
          const before = this.seen.get(`${topic}:${partition}`);
          const stuckSince = lag === 0 ? undefined : before && before.committed === from && before.lag > 0 ? (before.stuckSince ?? now) : now;
          next.set(`${topic}:${partition}`, { committed: from, lag, stuckSince });
          const labels = { topic, partition: String(partition) };
          consumerLag.set(labels, lag);
          consumerStalledSeconds.set(labels, stuckSince === undefined ? 0 : (now - stuckSince) / 1000);
        }
      }
    }
    for (const key of this.seen.keys()) {
      if (next.has(key)) continue;
      const [topic, partition] = splitKey(key);
      consumerLag.remove({ topic, partition });
      consumerStalledSeconds.remove({ topic, partition });
    }
    this.seen = next;
  }

  /** The partitions stalled past the threshold, each as a sentence. */
  stalled(now = Date.now()): string[] {
    return [...this.seen.entries()]
      .filter(([, p]) => p.stuckSince !== undefined && now - p.stuckSince >= this.options.stallAfterMs)
      .map(([key, p]) => {
        const [topic, partition] = splitKey(key);
        return `${topic}[${partition}]: ${p.lag} behind at offset ${p.committed}, no progress for ${Math.round((now - p.stuckSince!) / 1000)} s`;
      });
  }

  /** One client, kept while the consumer runs; a stop disconnects it, connected or still connecting. */
  private connectedAdmin(): Promise<Admin> {
    if (!this.admin) {
      // Few retries: the next tick asks again, and a stop must not wait on kafkajs' backoff.
      const admin = countRequests(this.kafka.admin({ retry: { retries: 1 } }));
      // The failure goes to whoever asked; the client is forgotten, to be made again at the next tick.
      const ready: Promise<Admin> = admin.connect().then(
        () => admin,
        (error: unknown) => {
          if (this.admin === ready) this.admin = undefined;
          throw error;
        },
      );
      this.admin = ready;
    }
    return this.admin;
  }
}

function splitKey(key: string): [string, string] {
  const at = key.lastIndexOf(':');
  return [key.slice(0, at), key.slice(at + 1)];
}
