import { registerOutboxGauges } from '@app/metrics';
import { BeforeApplicationShutdown, DynamicModule, Inject, Logger, Module, OnApplicationBootstrap, Optional, Type } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Kafka } from 'kafkajs';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { KNEX } from '@app/database';
import { createKafka, ensureTopics, EventCodec } from '@app/kafka';
import { exponentialDelay } from '@app/timing';
import { withDeadline } from '@app/timing';
import { ConsumerRunner } from './inbox/consumer.runner';
import { EventHandlers, HandlersOf } from './inbox/event-handlers';
import { pruneInbox } from './inbox/prune-inbox';
import { loadMessagingConfig, MessagingConfig } from './messaging.config';
import { MessagingHealth } from './messaging-health';
import { OutboxRelay } from './outbox/outbox.relay';
import { eventTypes } from '@app/events';
import { consumerGroupsOf, ServicePrincipal, serviceEvents } from '@app/catalogue';
import { setTimeout as sleep } from 'node:timers/promises';

export const KAFKA = Symbol('KAFKA');
export const MESSAGING_CONFIG = Symbol('MESSAGING_CONFIG');
/** The service's consumers, one a consumer group (see consumerGroupsOf); none when it reacts to nothing. */
export const CONSUMERS = Symbol('CONSUMERS');

/** A service's handlers, as an injectable so that they can use the service's own providers. */
export interface HandlerSource<S extends ServicePrincipal> {
  handlers(): HandlersOf<S>;
  /** Topics to read besides the handled types' own (see ConsumerOptions.moreTopics). */
  moreTopics?(): Promise<string[]>;
}

/**
 * Every service's messaging: the event topics provisioned, the outbox relay running, and, when the
 * service reacts to events, its consumer. Stopped before the database closes.
 */
@Module({})
export class MessagingModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('messaging');
  private inboxPruning?: NodeJS.Timeout;

  static forRoot<S extends ServicePrincipal>(handlers?: Type<HandlerSource<S>>): DynamicModule {
    const consumerProviders = handlers
      ? [
          handlers,
          {
            provide: CONSUMERS,
            inject: [KNEX, KAFKA, EventCodec, MESSAGING_CONFIG, SERVICE_CONFIG, handlers],
            useFactory: (knex: Knex, kafka: Kafka, codec: EventCodec, messaging: MessagingConfig, config: ServiceConfig, source: HandlerSource<S>) => {
              const { bookkeepingFetch, ...consumer } = messaging.consumer;
              const handled: EventHandlers = source.handlers();
              return consumerGroupsOf(config.service).map(
                ({ group, reads, bookkeeping }) =>
                  new ConsumerRunner(knex, kafka, codec, {
                    name: config.service,
                    group,
                    reads,
                    handlers: handled,
                    topicPartitions: messaging.topicPartitions,
                    ...consumer,
                    ...(bookkeeping ? { fetch: bookkeepingFetch } : { moreTopics: source.moreTopics ? () => source.moreTopics!() : undefined }),
                  }),
              );
            },
          },
        ]
      : [];
    return {
      module: MessagingModule,
      providers: [
        { provide: MESSAGING_CONFIG, useFactory: () => loadMessagingConfig() },
        {
          provide: EventCodec,
          inject: [SERVICE_CONFIG],
          useFactory: (c: ServiceConfig) => new EventCodec(c.schemaRegistryUrl, c.topicPrefix),
        },
        { provide: KAFKA, inject: [SERVICE_CONFIG], useFactory: (c: ServiceConfig) => createKafka(c.service, c.kafkaBrokers) },
        {
          provide: OutboxRelay,
          inject: [KNEX, KAFKA, EventCodec, MESSAGING_CONFIG],
          useFactory: (knex: Knex, kafka: Kafka, codec: EventCodec, messaging: MessagingConfig) => new OutboxRelay(knex, kafka, codec, messaging.relay),
        },
        ...consumerProviders,
        {
          provide: MessagingHealth,
          inject: [OutboxRelay, { token: CONSUMERS, optional: true }],
          useFactory: (relay: OutboxRelay, consumers?: ConsumerRunner[]) => new MessagingHealth(relay, consumers ?? []),
        },
      ],
      exports: [EventCodec, KAFKA, MESSAGING_CONFIG, MessagingHealth, ...(handlers ? [CONSUMERS] : [])],
    };
  }

  private stopping = false;
  private starting?: Promise<void>;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(KAFKA) private readonly kafka: Kafka,
    @Inject(MESSAGING_CONFIG) private readonly config: MessagingConfig,
    private readonly codec: EventCodec,
    private readonly relay: OutboxRelay,
    private readonly health: MessagingHealth,
    @Inject(SERVICE_CONFIG) private readonly serviceConfig: ServiceConfig,
    @Optional() @Inject(CONSUMERS) private readonly consumers: ConsumerRunner[] = [],
  ) {}

  /**
   * Messaging starts in the background and is tried again until it is up: a broker or registry that
   * is unreachable at boot delays the service's work, not its boot, and /health answers 503 naming
   * the step meanwhile.
   */
  onApplicationBootstrap(): void {
    registerOutboxGauges(async () => {
      const [row] = await this.knex('outbox')
        .whereNull('published_at')
        .select(this.knex.raw('count(*)::int as pending'), this.knex.raw('coalesce(extract(epoch from now() - min(created_at)), 0)::float as age'));
      return { pending: row.pending, oldestAgeSeconds: row.age };
    });
    this.starting = this.startMessaging();
    const retention = this.config.inboxRetentionMs;
    if (retention !== undefined) {
      this.inboxPruning = setInterval(
        () => {
          pruneInbox(this.knex, retention).catch((error) => this.logger.warn(`inbox pruning failed: ${(error as Error).message}`));
        },
        Math.min(retention, 3_600_000),
      );
    }
  }

  private async startMessaging(): Promise<void> {
    for (let failures = 0; !this.stopping;) {
      try {
        // The topics this service writes; its consumer checks those it reads. Both are provisioned by an
        // administrator (npm run stack:up): a service's principal creates nothing.
        const produced = serviceEvents[this.serviceConfig.service].produces;
        const topics = produced.map((type) => ({ topic: this.codec.topicFor(type), partitions: this.config.topicPartitions }));
        await this.bootStep('event topics ready', () => ensureTopics(this.kafka, topics, this.config.topicPartitions, undefined, { create: false }));
        // Every schema looked up once at start-up (provisioning registers them; a service may only
        // read the registry), so that a schema missing or changed shows here (and in /health) rather
        // than at a publish. One at a time: the services of a platform start together.
        await this.bootStep('schemas found', async () => {
          for (const type of eventTypes) await this.codec.schemaId(type);
        });
        if (this.stopping) return;
        await this.bootStep('outbox relay started', () => this.relay.start());
        // Joining the group can wait out a dead member's session, and a start that fails is tried
        // again: /health says meanwhile that the consumer is not yet doing its work.
        for (const consumer of this.consumers) consumer.run();
        this.health.startup = undefined;
        return;
      } catch (error) {
        failures++;
        const delay = exponentialDelay(failures, { initialMs: 1000, maxMs: 30_000, jitter: 0.2 });
        this.health.startup = `messaging could not start: ${(error as Error).message}`;
        this.logger.error(`${this.health.startup}; trying again in ${delay} ms`);
        await sleep(delay);
      }
    }
  }

  /** One start-up step, timed; a step that takes long says so while it waits, so a stuck boot names its step. */
  private async bootStep<T>(name: string, step: () => Promise<T>): Promise<T> {
    const started = Date.now();
    this.health.startup = `messaging is starting: waiting for ${name}`;
    const waiting = setInterval(() => this.logger.warn(`still waiting: ${name} (${Math.round((Date.now() - started) / 1000)} s)`), 10_000);
    try {
      const result = await step();
      this.logger.log(`${name} in ${Date.now() - started} ms`);
      return result;
    } finally {
      clearInterval(waiting);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.inboxPruning);
    this.stopping = true;
    // A start-up step stuck on an unresponsive broker is not waited for long.
    await withDeadline(this.starting ?? Promise.resolve(), 5_000, 'messaging start-up').catch(() => undefined);
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    await this.relay.stop();
  }
}
