import { createHash } from 'node:crypto';
import { namespaceOf } from '@app/catalogue';
import { signLocalToken } from '../auth/sign-token';
import { StackConfig } from '../stack/stack.config';
import type { Cluster } from './cluster';
import type { Behaviour, History } from './history';
import type { Random } from './random';
import type { WebhookReceiver } from './webhook-receiver';
import { Erasures } from './erasures';
import { campaignPartners, OutsideSystems, Sent } from './outside-systems';
import { setTimeout as sleep } from 'node:timers/promises';

const simulations: Record<Behaviour, Record<string, unknown>> = {
  success: {},
  transient: { transientFailures: 1 },
  permanent: { permanentFailure: true },
  exhausted: { transientFailures: 99 },
  slow: { latencyMs: 1500 },
  hang: { hang: true },
};

const behaviours: Array<readonly [Behaviour, number]> = [
  ['success', 55],
  ['transient', 15],
  ['permanent', 8],
  ['exhausted', 8],
  ['slow', 9],
  ['hang', 5],
];

/**
 * Users submitting tasks as clients do: with an Idempotency-Key, about a fifth of them sent again
 * (at once, concurrently, or up to three minutes later; a client whose request got no answer always sends it
 * again), a few reusing a key with another body, about one in twenty cancelled, and outside systems
 * writing TaskRequested on Kafka (see OutsideSystems): a quarter of the users are HTTP users alone, a
 * quarter the single-partner default's (`external:…`), a quarter partner alpha's, a quarter beta's. Each task asks the model simulator for one behaviour.
 */
export class Workload {
  private readonly tokens = new Map<string, string>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly later: Array<{ due: number; sent: Sent; repeat: 'resend' }> = [];
  /** Cancels to send, each at its own time after its task was accepted. */
  private readonly cancels: Array<{ due: number; user: string; taskId: string; tries: number }> = [];
  /** Erasures of idle users, each once its user's tasks had time to end. */
  private readonly erasures: Erasures;
  readonly outside: OutsideSystems;
  private running = false;
  private counter = 0;
  /** Every user the checker asks about, late ones included. */
  readonly users: string[];
  /** The users who submit now: late ones join when admitted, so that their accounts (and grants) are made then. */
  private active: string[];
  /** Users who submit a few tasks at the start and are then erased, while the others work on. */
  readonly idleUsers = ['external:chaos-idle-0', 'external:chaos-idle-1'];

  constructor(
    private readonly stack: StackConfig,
    private readonly cluster: Cluster,
    private readonly history: History,
    private readonly random: Random,
    private readonly receiver: WebhookReceiver,
    userCount: number,
    /** A rolling deploy's: users who join once both releases run, and a previous release that let `external` act for HTTP users. */
    deploy?: { lateUsers: number },
  ) {
    const lateUserCount = deploy?.lateUsers ?? 0;
    // HTTP users (no namespace), the single-partner default's and each partner's, in turn
    const namespaces = ['', 'external:', ...campaignPartners.map((partner) => `${partner}:`)];
    this.users = Array.from({ length: userCount + lateUserCount }, (_, i) => `${namespaces[i % namespaces.length]}chaos-user-${i}`);
    this.active = this.users.slice(0, userCount);
    this.outside = new OutsideSystems(stack, history, random, this.users, deploy === undefined);
    this.erasures = new Erasures(stack, cluster, history, random);
  }

  /** Tokens for every user; a webhook for every other one. */
  async prepare(): Promise<void> {
    for (const user of [...this.users, ...this.idleUsers])
      this.tokens.set(user, await signLocalToken({ userId: user, ttl: '6h', stackDir: this.stack.stackDir }));
    await this.erasures.prepare();
    for (const user of this.users.filter((_, i) => i % 2 === 0)) {
      const response = await fetch(`${this.cluster.url('notification')}/users/${user}/webhook`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${this.tokens.get(user)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: this.receiver.url(user) }),
      });
      if (response.ok) this.receiver.trust(user, ((await response.json()) as { secret: string }).secret);
      this.history.record({ kind: 'webhook', at: Date.now(), user, status: response.status });
    }
    await this.outside.connect();
  }

  admitLateUsers(): void {
    this.active = this.users;
  }

  /** Offers work until stopped: a new request every 100–400 ms, at most 12 in flight. */
  async run(): Promise<void> {
    this.running = true;
    this.startIdleUsers();
    this.track(this.outside.everyHostilityOnce());
    while (this.running) {
      const due = this.later.findIndex((l) => l.due <= Date.now());
      const cancel = this.cancels.findIndex((c) => c.due <= Date.now());
      const [erasure] = this.erasures.takeDue();
      if (erasure) {
        this.track(this.erasures.erase(erasure));
      } else if (cancel >= 0) {
        this.track(this.cancel(this.cancels.splice(cancel, 1)[0]));
      } else if (due >= 0) {
        const [{ sent, repeat }] = this.later.splice(due, 1);
        this.track(this.submit(sent, repeat));
      } else if (this.pending.size < 12) {
        this.next();
      }
      await sleep(this.random.between(100, 400));
    }
  }

  /** Stops offering new work, sends what was promised for later at once, and waits for every answer. */
  async stop(): Promise<void> {
    this.running = false;
    for (const { sent, repeat } of this.later.splice(0)) this.track(this.submit(sent, repeat));
    for (const cancel of this.cancels.splice(0)) this.track(this.cancel(cancel));
    for (const erasure of this.erasures.takeDue(true)) this.track(this.erasures.erase(erasure));
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await this.outside.disconnect();
  }

  private next(): void {
    const user = this.random.pick(this.active);
    const behaviour = this.random.weighted(behaviours);
    const key = `k-${++this.counter}`;
    const body = JSON.stringify({ reportType: 'summary', input: { n: this.counter, simulate: simulations[behaviour] } });
    const sent: Sent = { user, key, body, behaviour };
    // A user of a namespace is asked for from outside too; an HTTP user only over HTTP (no sender may act for it)
    if (namespaceOf(user) !== undefined && this.random.chance(0.15)) {
      this.track(this.outside.publish(sent, this.random.chance(0.2)));
      return;
    }
    this.track(this.submit(sent));
    if (this.random.chance(0.2)) {
      if (this.random.chance(0.5)) this.track(this.submit(sent, 'resend'));
      else this.later.push({ due: Date.now() + this.random.between(5_000, 180_000), sent, repeat: 'resend' });
    } else if (this.random.chance(0.025)) {
      const other = JSON.stringify({ reportType: 'summary', input: { n: this.counter, other: true } });
      this.track(this.submit({ ...sent, body: other }, 'reuse'));
    }
  }

  private track(work: Promise<unknown>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async submit(sent: Sent, repeat?: 'resend' | 'reuse'): Promise<void> {
    const tasks = this.random.pick(this.cluster.urls('tasks'));
    const base = { kind: 'submit' as const, at: Date.now(), user: sent.user, key: sent.key, repeat, bodyHash: hash(sent.body), behaviour: sent.behaviour };
    try {
      const response = await fetch(`${tasks}/tasks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.tokens.get(sent.user)}`, 'content-type': 'application/json', 'idempotency-key': sent.key },
        body: sent.body,
        signal: AbortSignal.timeout(15_000),
      });
      const answer = (await response.json().catch(() => ({}))) as { taskId?: string };
      this.history.record({ ...base, status: response.status, taskId: answer.taskId });
      // About one task in twenty is cancelled by its user, at once or up to ten seconds later.
      if (response.status === 202 && answer.taskId && !repeat && this.random.chance(0.05)) {
        this.cancels.push({ due: Date.now() + this.random.between(0, 10_000), user: sent.user, taskId: answer.taskId, tries: 0 });
      }
      // A client that got a server error or a conflict asks again later, with the same key.
      if ((response.status >= 500 || response.status === 409) && this.running && repeat !== 'reuse') {
        this.later.push({ due: Date.now() + this.random.between(2_000, 20_000), sent, repeat: 'resend' });
      }
    } catch (error) {
      this.history.record({ ...base, status: 0, error: (error as Error).message });
      if (this.running && repeat !== 'reuse') this.later.push({ due: Date.now() + this.random.between(2_000, 20_000), sent, repeat: 'resend' });
    }
  }

  /** A cancel, under one key per task: a client with no answer (or a 5xx, or a busy 409) asks again with it. */
  private async cancel(cancel: { due: number; user: string; taskId: string; tries: number }): Promise<void> {
    const tasks = this.random.pick(this.cluster.urls('tasks'));
    const base = { kind: 'cancel' as const, at: Date.now(), user: cancel.user, taskId: cancel.taskId };
    let status = 0;
    try {
      const response = await fetch(`${tasks}/tasks/${cancel.taskId}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.tokens.get(cancel.user)}`, 'idempotency-key': `cancel-${cancel.taskId}` },
        signal: AbortSignal.timeout(15_000),
      });
      status = response.status;
      const answer = (await response.json().catch(() => ({}))) as { state?: string };
      this.history.record({ ...base, status, state: answer.state });
      if (status === 409 && answer.state === undefined) status = 0; // busy, not decided: ask again
    } catch (error) {
      this.history.record({ ...base, status: 0, error: (error as Error).message });
    }
    if ((status === 0 || status >= 500) && cancel.tries < 5) {
      this.cancels.push({ ...cancel, due: Date.now() + this.random.between(2_000, 10_000), tries: cancel.tries + 1 });
    }
  }

  /**
   * Each idle user asks for two reports at the start, one by POST and one from outside, and is erased
   * 20–60 s later, while the others work on and the nemesis strikes.
   */
  private startIdleUsers(): void {
    for (const user of this.idleUsers) {
      const n = ++this.counter;
      const sent = (key: string): Sent => ({ user, key, body: JSON.stringify({ reportType: 'summary', input: { n, idle: true } }), behaviour: 'success' });
      this.track(this.submit(sent(`idle-${n}-a`)));
      this.track(this.outside.publish(sent(`idle-${n}-b`), false));
      this.erasures.schedule(user, this.random.between(20_000, 60_000));
    }
  }
}

function hash(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}
