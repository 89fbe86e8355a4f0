import type { Logger } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { serviceEvents, ServicePrincipal } from '@app/catalogue';
import { eventTypes } from '@app/events';
import { letGo } from '@app/failures';
import { ensureTopics, EventCodec } from '@app/kafka';
import { exponentialDelay, withDeadline } from '@app/timing';
import type { ConsumerRunner } from './inbox/consumer.runner';
import type { MessagingHealth } from './messaging-health';
import type { OutboxRelay } from './outbox/outbox.relay';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a service's messaging starts: its topics checked, its schemas looked up, its relay, its consumers. */
export interface MessagingParts {
  service: ServicePrincipal;
  kafka: Kafka;
  codec: EventCodec;
  topicPartitions: number;
  relay: OutboxRelay;
  consumers: ConsumerRunner[];
  health: MessagingHealth;
}

/**
 * Messaging starts in the background and is tried again until it is up: a broker or registry that
 * is unreachable at boot delays the service's work, not its boot, and /health answers 503 naming
 * the step meanwhile.
 */
export class MessagingStartup {
  private stopping = false;
  private starting?: Promise<void>;

  constructor(
    private readonly parts: MessagingParts,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.starting = this.startUntilUp();
  }

  /** No further try; a step stuck on an unresponsive broker is not waited for long. */
  async stop(): Promise<void> {
    this.stopping = true;
    const unfinished = letGo('messaging stops before its start-up finished', this.logger, { level: 'warn' });
    await withDeadline(this.starting ?? Promise.resolve(), 5_000, 'messaging start-up').catch(unfinished);
  }

  private async startUntilUp(): Promise<void> {
    const { health } = this.parts;
    for (let failures = 0; !this.stopping;) {
      try {
        await this.startOnce();
        if (!this.stopping) health.startup = undefined;
        return;
      } catch (error) {
        failures++;
        const delay = exponentialDelay(failures, { initialMs: 1000, maxMs: 30_000, jitter: 0.2 });
        health.startup = `messaging could not start: ${(error as Error).message}`;
        this.logger.error(`${health.startup}; trying again in ${delay} ms`);
        await sleep(delay);
      }
    }
  }

  private async startOnce(): Promise<void> {
    const { service, kafka, codec, topicPartitions, relay, consumers } = this.parts;
    // The topics this service writes; its consumer checks those it reads. Both are provisioned by an
    // administrator (npm run stack:up): a service's principal creates nothing.
    const topics = serviceEvents[service].produces.map((type) => ({ topic: codec.topicFor(type), partitions: topicPartitions }));
    await this.bootStep('event topics ready', () => ensureTopics(kafka, topics, topicPartitions, undefined, { create: false }));
    // Every schema looked up once at start-up (provisioning registers them; a service may only
    // read the registry), so that a schema missing or changed shows here (and in /health) rather
    // than at a publish. One at a time: the services of a platform start together.
    await this.bootStep('schemas found', async () => {
      for (const type of eventTypes) await codec.schemaId(type);
    });
    if (this.stopping) return;
    await this.bootStep('outbox relay started', () => relay.start());
    // Joining the group can wait out a dead member's session, and a start that fails is tried
    // again: /health says meanwhile that the consumer is not yet doing its work.
    for (const consumer of consumers) consumer.run();
  }

  /** One start-up step, timed; a step that takes long says so while it waits, so a stuck boot names its step. */
  private async bootStep<T>(name: string, step: () => Promise<T>): Promise<T> {
    const started = Date.now();
    this.parts.health.startup = `messaging is starting: waiting for ${name}`;
    const waiting = setInterval(() => this.logger.warn(`still waiting: ${name} (${Math.round((Date.now() - started) / 1000)} s)`), 10_000);
    try {
      const result = await step();
      this.logger.log(`${name} in ${Date.now() - started} ms`);
      return result;
    } finally {
      clearInterval(waiting);
    }
  }
}
