import type { EachBatchPayload } from 'kafkajs';

const groupMoving = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'NOT_COORDINATOR']);

type Committer = Pick<EachBatchPayload, 'commitOffsetsIfNecessary' | 'uncommittedOffsets'>;
interface Log {
  warn(message: string): void;
}

/**
 * Offsets committed off the hot path. With autoCommit on, kafkajs sends an OffsetCommit after every
 * batch and waits for it before the next fetch: a Kafka round trip on every hop of a task. Here a
 * batch only resolves its offsets (after its transactions committed), and what is resolved is
 * committed every `intervalMs`, when a rebalance is announced, and when the consumer stops; a dead
 * letter's offset is still committed at once (it has no inbox row to stop a redelivery). What a
 * crash or a lost commit leaves uncommitted — at most an interval of work — is delivered again, and
 * the inbox finds each of those events already handled.
 *
 * kafkajs gives no revocation callback: a rebalance shows as a heartbeat refused with
 * REBALANCE_IN_PROGRESS, which the coordinator still accepts commits from the current generation
 * for, so that is when the partitions' progress is committed before they may move.
 */
export class OffsetCommits {
  /** The latest batch's way to commit: the runner's group, whatever partition the batch was of. */
  private committer?: Committer;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly intervalMs: number,
    private readonly log: Log,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.commitResolved(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The consumer it committed through has left: nothing to commit until the next one's first batch. */
  forget(): void {
    this.committer = undefined;
  }

  /** Called by every batch, before it handles anything. */
  batchStarted(committer: Committer): void {
    this.committer = committer;
  }

  /** Commits `offset` + 1 of a partition now (a dead letter's). */
  async commitNow(committer: Committer, topic: string, partition: number, offset: string): Promise<void> {
    const next = (BigInt(offset) + 1n).toString();
    await committer.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next }] }] });
  }

  /** Commits every resolved offset not yet committed; a failure leaves them for the next try. */
  async commitResolved(): Promise<void> {
    const committer = this.committer;
    if (!committer) return;
    try {
      const uncommitted = committer.uncommittedOffsets();
      if (uncommitted.topics.length > 0) await committer.commitOffsetsIfNecessary(uncommitted);
    } catch (error) {
      // A rebalance under way refuses the old generation's commit: expected, and the inbox absorbs it.
      if (groupMoving.has(String((error as { type?: unknown }).type))) return;
      this.log.warn(`committing offsets failed (${(error as Error).message}); their events may be delivered again, and skipped by the inbox`);
    }
  }

  /** A heartbeat that, when a rebalance is announced, commits what was handled before passing the news on. */
  heartbeatCommittingOnRebalance(heartbeat: () => Promise<void>): () => Promise<void> {
    return async () => {
      try {
        await heartbeat();
      } catch (error) {
        if ((error as { type?: unknown }).type === 'REBALANCE_IN_PROGRESS') await this.commitResolved();
        throw error;
      }
    };
  }
}
