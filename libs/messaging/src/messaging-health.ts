import type { ConsumerRunner } from './inbox/consumer.runner';
import type { OutboxRelay } from './outbox/outbox.relay';

/** What /health needs to know of a service's messaging: whatever stops it from doing its work. */
export class MessagingHealth {
  /** What messaging's start-up is doing or failed at; undefined once it is up. */
  startup?: string = 'messaging has not started yet';

  constructor(
    private readonly relay: OutboxRelay,
    private readonly consumers: ConsumerRunner[],
  ) {}

  /** Empty when the relay loop runs and every consumer is in its group; else what is not. */
  problems(): string[] {
    if (this.startup) return [this.startup];
    const problems: string[] = [];
    if (!this.relay.running) problems.push('the outbox relay is not running');
    for (const consumer of this.consumers.filter((c) => c.status !== 'joined')) {
      const why = consumer.lastError ? `: ${consumer.lastError}` : '';
      problems.push(`the consumer ${consumer.groupId} is ${consumer.status}${why}`);
    }
    return problems;
  }

  /**
   * What keeps the service from progressing though it runs: partitions with lag whose committed
   * offset has not moved for a while. Not a reason to restart it — it would read the same message
   * again — but for a person to look at.
   */
  degraded(): string[] {
    return this.consumers
      .map((consumer) => ({ consumer, stalled: consumer.stalledPartitions() }))
      .filter(({ stalled }) => stalled.length > 0)
      .map(({ consumer, stalled }) => `the consumer ${consumer.groupId} makes no progress on ${stalled.join('; ')}`);
  }
}
