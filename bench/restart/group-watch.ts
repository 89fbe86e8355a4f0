import type { Admin, Kafka } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A group's state as the coordinator told it, from `at` until the next entry. */
interface Seen {
  at: number;
  state: string;
}

/**
 * Asks the coordinator every `everyMs` what state each group is in, from outside the services (so
 * nothing in them changes): the time a group spends out of `Stable` is the time its partitions are
 * read by no one — kafkajs rebalances eagerly, every member gives everything back and waits for the
 * last member to join again.
 */
export class GroupWatch {
  private readonly seen = new Map<string, Seen[]>();
  private admin?: Admin;
  private running = false;
  private loop?: Promise<void>;

  constructor(
    private readonly kafka: Kafka,
    private readonly groupIds: string[],
    private readonly everyMs = 100,
  ) {}

  async start(): Promise<this> {
    this.admin = this.kafka.admin();
    await this.admin.connect();
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const at = Date.now();
        const { groups } = await this.admin!.describeGroups(this.groupIds).catch(() => ({ groups: [] as Array<{ groupId: string; state: string }> }));
        for (const { groupId, state } of groups) {
          const history = this.seen.get(groupId) ?? [];
          if (history[history.length - 1]?.state !== state) history.push({ at, state });
          this.seen.set(groupId, history);
        }
        await sleep(Math.max(0, at + this.everyMs - Date.now()));
      }
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.admin?.disconnect();
  }

  /** Milliseconds each group spent rebalancing (neither Stable nor Empty) within [from, to), the groups that did. */
  rebalancingBetween(from: number, to: number): Record<string, number> {
    const paused: Record<string, number> = {};
    for (const [groupId, history] of this.seen) {
      let ms = 0;
      history.forEach(({ at, state }, i) => {
        if (state === 'Stable' || state === 'Empty') return;
        const end = history[i + 1]?.at ?? Date.now();
        ms += Math.max(0, Math.min(end, to) - Math.max(at, from));
      });
      if (ms > 0) paused[groupId] = ms;
    }
    return paused;
  }
}
