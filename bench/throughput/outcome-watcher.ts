import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka } from 'kafkajs';
import { eventTypes } from '@app/events';
import { EventCodec } from '@app/kafka';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Watches every event topic of a platform, as an outside consumer does: when each
 * task's outcome was appended (its record's timestamp, stamped by the relay that sent it), and for
 * every event how long it waited between being written (its occurredAt, in the writing
 * transaction) and being sent by the relay. Both clocks are this machine's.
 */
export class OutcomeWatcher {
  readonly completedAt = new Map<string, number>();
  readonly failed = new Set<string>();
  private relayLags: number[] = [];
  private recordLags = false;
  private valueBytes = 0;
  private values = 0;
  private readonly consumer: Consumer;

  constructor(
    kafka: Kafka,
    private readonly codec: EventCodec,
  ) {
    // Light: a fetch waits for 64 KB or half a second. The instants it records are the records' own,
    // so how late it reads them changes no figure, only what it takes from the machine it measures.
    this.consumer = kafka.consumer({ groupId: `${codec.topicPrefix}bench-watcher-${randomUUID()}`, minBytes: 65_536, maxWaitTimeInMs: 500 });
  }

  async start(): Promise<this> {
    let joined!: () => void;
    const hasJoined = new Promise<void>((resolve) => (joined = resolve));
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => joined());
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: eventTypes.map((type) => this.codec.topicFor(type)), fromBeginning: true });
    await this.consumer.run({
      partitionsConsumedConcurrently: 4,
      eachMessage: async ({ message }) => {
        const type = message.headers?.eventType?.toString();
        const taskId = message.key?.toString() ?? '';
        this.valueBytes += message.value?.length ?? 0;
        this.values++;
        if (type === 'TaskCompleted') this.completedAt.set(taskId, Number(message.timestamp));
        if (type === 'TaskFailed' || type === 'TaskRejected' || type === 'TaskTimedOut') this.failed.add(taskId);
        if (this.recordLags && message.value) {
          const event = await this.codec.decode(message.value);
          this.relayLags.push(Number(message.timestamp) - event.occurredAt);
        }
      },
    });
    await hasJoined;
    return this;
  }

  /** From now on, records each event's relay lag (decoding every event costs CPU: only while measuring it). */
  measureRelayLag(on: boolean): number[] {
    this.recordLags = on;
    const lags = this.relayLags;
    this.relayLags = [];
    return lags.sort((a, b) => a - b);
  }

  /** The mean size of the events seen, for the baselines to move messages of the same size. */
  averageValueBytes(): number {
    return this.values === 0 ? 0 : this.valueBytes / this.values;
  }

  /** Waits until every task has an outcome; a failed one fails the benchmark, which offers only work that succeeds. */
  async allCompleted(taskIds: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const failed = taskIds.filter((id) => this.failed.has(id));
      if (failed.length > 0) throw new Error(`${failed.length} tasks did not complete (first: ${failed[0]})`);
      const open = taskIds.filter((id) => !this.completedAt.has(id)).length;
      if (open === 0) return;
      if (Date.now() > deadline) throw new Error(`${open} of ${taskIds.length} tasks still without an outcome after ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
