import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Knex } from 'knex';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { databaseAnswers, KNEX } from '@app/database';
import { kafkaAnswers } from '@app/messaging';

/** 200 when the service's database and Kafka both answer, 503 otherwise (terminus' format). */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
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
    ]);
  }
}
