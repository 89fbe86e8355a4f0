import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Knex } from 'knex';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { databaseAnswers, KNEX } from '@app/database';
import { MessagingHealth } from '@app/messaging';
import { kafkaAnswers } from '@app/kafka';
import { Public } from '@app/auth';
import { degradations } from './degradations';

/**
 * 200 when the service can do its work: its database and Kafka answer, its outbox relay runs and its
 * consumer is in its group; 503 otherwise, naming what is not (terminus' format). A consumer that
 * runs but makes no progress is reported under `progress` as degraded, with the answer still 200.
 */
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly messaging: MessagingHealth,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([
      async () => {
        const postgres = this.indicators.check('postgres');
        return (await databaseAnswers(this.knex)) ? postgres.up() : postgres.down('database does not answer');
      },
      async () => {
        const kafka = this.indicators.check('kafka');
        return (await kafkaAnswers(this.config.kafkaBrokers)) ? kafka.up() : kafka.down('no Kafka broker answers');
      },
      async () => {
        const messaging = this.indicators.check('messaging');
        const problems = this.messaging.problems();
        return problems.length === 0 ? messaging.up() : messaging.down(problems.join('; '));
      },
      // Degraded, not down: a stalled consumer is for an operator; a restart would read the same message again.
      async () => {
        const degraded = [...this.messaging.degraded(), ...degradations.list()];
        return this.indicators.check('progress').up(degraded.length === 0 ? {} : { degraded: true, stalled: degraded });
      },
    ]);
  }
}
