import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka } from 'kafkajs';
import { eventTypes } from '@app/events';
import { EventCodec } from '@app/kafka';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from '../bench-support';

/** The events a successful task waits for, in order: the four hops of its critical path. */
const criticalPathEvents = ['TaskAccepted', 'QuotaDebited', 'GenerationSucceeded', 'TaskCompleted'] as const;

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
  /** While measuring: when each critical-path event of a task was written and sent. */
  private readonly pathOf = new Map<string, Partial<Record<string, { written: number; sent: number }>>>();
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
          if ((criticalPathEvents as readonly string[]).includes(event.eventType)) {
            const seen = this.pathOf.get(taskId) ?? {};
            seen[event.eventType] = { written: event.occurredAt, sent: Number(message.timestamp) };
            this.pathOf.set(taskId, seen);
          }
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

  /**
   * Where a task's time went, POST to TaskCompleted sent, over `postedAt`'s tasks: each step's p50 and
   * p99 in ms. A step ending in "written" is a consumer's fetch and reaction (or POST's transaction),
   * one ending in "sent" a relay's wait and send.
   */
  stagesOf(postedAt: Map<string, number>): Record<string, { p50: number; p99: number }> {
    const steps: Record<string, number[]> = {};
    for (const [taskId, posted] of postedAt) {
      const seen = this.pathOf.get(taskId);
      let from = { name: 'POST', at: posted };
      for (const type of criticalPathEvents) {
        const at = seen?.[type];
        if (!at) break;
        for (const [name, instant] of [
          [`${type} written`, at.written],
          [`${type} sent`, at.sent],
        ] as const) {
          (steps[`${from.name} → ${name}`] ??= []).push(instant - from.at);
          from = { name, at: instant };
        }
      }
    }
    this.pathOf.clear();
    return Object.fromEntries(
      Object.entries(steps).map(([step, ms]) => {
        const sorted = ms.sort((a, b) => a - b);
        return [step, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
      }),
    );
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
