import { DynamicModule, Inject, Logger, Module, OnApplicationShutdown, Provider, Type } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { loadAuthConfig, TokenVerifier } from '@app/auth';
import type { Knex } from 'knex';
import { loadServiceConfig, SERVICE_CONFIG, ServiceConfig, ServiceName } from '@app/config';
import { createKnex, ensureDatabase, KNEX, migrateToLatest, Migration } from '@app/database';
import { HealthModule } from '@app/health';
import { HandlerSource, MessagingModule } from '@app/messaging';
import { dbStatements, HttpMetricsInterceptor, MetricsController } from '@app/metrics';
import { stopTracing } from '@app/tracing';
import { AuthGuard, TOKEN_VERIFIER } from './auth.guard';
import { createRootLogger, loggingModule } from './logging';
import { OutboxController } from './outbox.controller';
import { RequestHygieneInterceptor } from './request-hygiene.interceptor';

export interface ServiceOptions<S extends ServiceName> {
  service: S;
  /** All of the service's migrations, the messaging tables (outbox, inbox) among them. */
  migrations: Migration[];
  /** The events the service reacts to, if any. */
  handlers?: Type<HandlerSource<S>>;
  /** The service's own shared providers (its config, say): global, so its handlers can inject them. */
  providers?: Array<Provider & { provide: symbol | string | Type<unknown> }>;
}

/**
 * What every service has: its validated config, its own database (created and migrated at boot),
 * messaging (outbox relay, and its consumer when it has handlers), GET /health, GET /metrics, and a bearer token
 * checked on every other route. Global, so a
 * service's handlers can inject SERVICE_CONFIG and KNEX directly.
 */
@Module({})
export class ServiceModule implements OnApplicationShutdown {
  private readonly logger = new Logger('service');

  constructor(@Inject(KNEX) private readonly knex: Knex) {}

  static forRoot<S extends ServiceName>(options: ServiceOptions<S>): DynamicModule {
    return {
      module: ServiceModule,
      global: true,
      imports: [loggingModule(createRootLogger(options.service)), HealthModule, MessagingModule.forRoot(options.handlers)],
      controllers: [MetricsController, OutboxController],
      providers: [
        { provide: SERVICE_CONFIG, useFactory: () => loadServiceConfig(options.service) },
        {
          provide: KNEX,
          inject: [SERVICE_CONFIG],
          useFactory: async (config: ServiceConfig) => {
            await ensureDatabase(config.databaseUrl);
            // Migrated on a pool of its own, whose statements may run for minutes; the service's pool
            // then has the short timeouts of its work.
            const migrator = createKnex(config.databaseUrl, 2, { role: 'migration' });
            await migrateToLatest(migrator, options.migrations).finally(() => migrator.destroy());
            const knex = createKnex(config.databaseUrl, 10, { timeouts: config.databaseTimeouts });
            knex.on('query', () => dbStatements.inc());
            return knex;
          },
        },
        { provide: TOKEN_VERIFIER, useFactory: () => new TokenVerifier(loadAuthConfig()) },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_INTERCEPTOR, useClass: RequestHygieneInterceptor },
        { provide: APP_INTERCEPTOR, useClass: HttpMetricsInterceptor },
        ...(options.providers ?? []),
      ],
      exports: [SERVICE_CONFIG, KNEX, MessagingModule, ...(options.providers ?? []).map((p) => p.provide)],
    };
  }

  async onApplicationShutdown(signal?: string): Promise<void> {
    await this.knex.destroy();
    await stopTracing();
    this.logger.log(`stopped cleanly${signal ? ` on ${signal}` : ''}`);
  }
}
