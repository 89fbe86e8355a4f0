import { authAs } from '@test/tokens';
import { users } from '../throughput/submissions';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A client at a steady rate behind a load balancer: it spreads POSTs over the tasks instances in
 * service, and a request that gets no answer or a 5xx is sent again (same key) to another within
 * ten seconds, as a client with an Idempotency-Key does. Each task's time counts from its first try.
 */
export class SteadyClient {
  readonly postedAt = new Map<string, number>();
  /** Requests that never got a 202, with why. */
  readonly failures: string[] = [];
  private readonly inService = new Set<string>();
  private running = false;
  private sent = 0;
  private loop?: Promise<void>;
  private readonly pending = new Set<Promise<void>>();

  constructor(tasksUrls: string[]) {
    for (const url of tasksUrls) this.inService.add(url);
  }

  /** A load balancer's drain: no new request goes to `url` until it is back. */
  drain(url: string): void {
    this.inService.delete(url);
  }

  serve(url: string): void {
    this.inService.add(url);
  }

  start(rate: number, label: string): void {
    this.running = true;
    this.loop = (async () => {
      const started = Date.now();
      for (let i = 0; this.running; i++) {
        const one = this.submit(`${label}-${i}`);
        this.pending.add(one);
        void one.finally(() => this.pending.delete(one));
        await sleep(Math.max(0, started + ((i + 1) * 1000) / rate - Date.now()));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async submit(key: string): Promise<void> {
    const at = Date.now();
    const user = users[this.sent++ % users.length];
    const body = JSON.stringify({ reportType: 'summary', input: { key } });
    let last = '';
    for (let attempt = 0; Date.now() - at < 10_000; attempt++) {
      const urls = [...this.inService];
      const url = urls[(this.sent + attempt) % urls.length];
      try {
        const response = await fetch(`${url}/tasks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(await authAs(user)) },
          body,
          signal: AbortSignal.timeout(5000),
        });
        if (response.status === 202) return void this.postedAt.set(((await response.json()) as { taskId: string }).taskId, at);
        last = `answered ${response.status}`;
        if (response.status < 500) break;
      } catch (error) {
        last = (error as Error).message;
      }
      await sleep(100);
    }
    this.failures.push(`${key}: ${last}`);
  }
}
