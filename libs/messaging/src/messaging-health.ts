import type { ConsumerRunner } from './inbox/consumer.runner';
import type { OutboxRelay } from './outbox/outbox.relay';

/** What /health needs to know of a service's messaging: whatever stops it from doing its work. */
export class MessagingHealth {
  /** What messaging's start-up is doing or failed at; undefined once it is up. */
  startup?: string = 'messaging has not started yet';

  constructor(
    private readonly relay: OutboxRelay,
    private readonly consumer?: ConsumerRunner,
  ) {}

  /** Empty when the relay loop runs and the consumer (if any) is in its group; else what is not. */
  problems(): string[] {
    if (this.startup) return [this.startup];
    const problems: string[] = [];
    if (!this.relay.running) problems.push('the outbox relay is not running');
    if (this.consumer && this.consumer.status !== 'joined') {
      const why = this.consumer.lastError ? `: ${this.consumer.lastError}` : '';
      problems.push(`the consumer ${this.consumer.groupId} is ${this.consumer.status}${why}`);
    }
    return problems;
  }

  /**
   * What keeps the service from progressing though it runs: partitions with lag whose committed
   * offset has not moved for a while. Not a reason to restart it — it would read the same message
   * again — but for a person to look at.
   */
  degraded(): string[] {
    const stalled = this.consumer?.stalledPartitions() ?? [];
    return stalled.length > 0 ? [`the consumer ${this.consumer!.groupId} makes no progress on ${stalled.join('; ')}`] : [];
  }
}
