import { registerOutboxGauges } from '@app/metrics';
import { BeforeApplicationShutdown, DynamicModule, Inject, Logger, Module, OnApplicationBootstrap, Optional, Type } from '@nestjs/common';
import type { Knex } from 'knex';
import type { Kafka } from 'kafkajs';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { KNEX } from '@app/database';
import { createKafka, EventCodec } from '@app/kafka';
import { ConsumerRunner } from './inbox/consumer.runner';
import { EventHandlers, HandlersOf } from './inbox/event-handlers';
import { pruneInboxEvery } from './inbox/prune-inbox';
import { MessagingStartup } from './messaging-startup';
import { outboxBacklog } from './outbox/outbox-backlog';
import { loadMessagingConfig, MessagingConfig } from './messaging.config';
import { MessagingHealth } from './messaging-health';
import { OutboxRelay } from './outbox/outbox.relay';
import { consumerGroupsOf, ServicePrincipal } from '@app/catalogue';

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
 * Every service's messaging, wired: the outbox relay, its consumers when the service reacts to
 * events (MessagingStartup starts them), the outbox's gauges, the inbox's pruning. Stopped before
 * the database closes.
 */
@Module({})
export class MessagingModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('messaging');

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

  private readonly startup: MessagingStartup;
  private stopPruning?: () => void;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(KAFKA) kafka: Kafka,
    @Inject(MESSAGING_CONFIG) private readonly config: MessagingConfig,
    codec: EventCodec,
    private readonly relay: OutboxRelay,
    health: MessagingHealth,
    @Inject(SERVICE_CONFIG) serviceConfig: ServiceConfig,
    @Optional() @Inject(CONSUMERS) private readonly consumers: ConsumerRunner[] = [],
  ) {
    const parts = { service: serviceConfig.service, kafka, codec, topicPartitions: config.topicPartitions, relay, consumers, health };
    this.startup = new MessagingStartup(parts, this.logger);
  }

  onApplicationBootstrap(): void {
    registerOutboxGauges(() => outboxBacklog(this.knex));
    this.startup.start();
    const retention = this.config.inboxRetentionMs;
    if (retention !== undefined) this.stopPruning = pruneInboxEvery(this.knex, retention, this.logger);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopPruning?.();
    await this.startup.stop();
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    await this.relay.stop();
  }
}
