import { signLocalToken } from '../auth/sign-token';
import type { StackConfig } from '../stack/stack.config';
import type { Cluster } from './cluster';
import type { History } from './history';
import type { Random } from './random';

interface Erasure {
  due: number;
  user: string;
  tries: number;
}

/**
 * An operator erasing users (`DELETE /users/{userId}/data`) at the times they are scheduled for,
 * under one key per user: one with no answer (or a 5xx, or a busy 409) is asked again with it.
 */
export class Erasures {
  private readonly waiting: Erasure[] = [];
  private token = '';

  constructor(
    private readonly stack: StackConfig,
    private readonly cluster: Cluster,
    private readonly history: History,
    private readonly random: Random,
  ) {}

  async prepare(): Promise<void> {
    this.token = await signLocalToken({ userId: 'chaos-operator', roles: ['admin'], ttl: '6h', stackDir: this.stack.stackDir });
  }

  schedule(user: string, inMs: number): void {
    this.waiting.push({ due: Date.now() + inMs, user, tries: 0 });
  }

  /** The erasure now due, if any, taken from the schedule; all of them with `all` (the run is ending). */
  takeDue(all = false): Erasure[] {
    const due = this.waiting.filter((e) => all || e.due <= Date.now());
    for (const erasure of due) this.waiting.splice(this.waiting.indexOf(erasure), 1);
    return all ? due : due.slice(0, 1);
  }

  async erase(erasure: Erasure): Promise<void> {
    const tasks = this.random.pick(this.cluster.urls('tasks'));
    const base = { kind: 'erase' as const, at: Date.now(), user: erasure.user };
    let status = 0;
    try {
      const response = await fetch(`${tasks}/users/${erasure.user}/data`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${this.token}`, 'idempotency-key': `erase-${erasure.user}` },
        signal: AbortSignal.timeout(15_000),
      });
      status = response.status;
      const answer = (await response.json().catch(() => ({}))) as { erasureId?: string };
      this.history.record({ ...base, status, erasureId: answer.erasureId });
    } catch (error) {
      this.history.record({ ...base, status: 0, error: (error as Error).message });
    }
    if ((status === 0 || status >= 500 || status === 409) && erasure.tries < 10) {
      this.waiting.push({ ...erasure, due: Date.now() + this.random.between(2_000, 10_000), tries: erasure.tries + 1 });
    }
  }
}
