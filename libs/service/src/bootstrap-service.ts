import { Logger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError, logLevelsFrom, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { ProblemDetailsFilter } from './problem-details.filter';

/** Boots a service: validated config, shutdown hooks for SIGTERM/SIGINT, HTTP on its port. */
export async function bootstrapService(module: Type<unknown>, name: string): Promise<void> {
  const logger = new Logger(name);
  try {
    const app = await NestFactory.create<NestExpressApplication>(module, { abortOnError: false, logger: logLevelsFrom(process.env.LOG_LEVEL) });
    app.enableShutdownHooks();
    app.useGlobalFilters(new ProblemDetailsFilter());
    app.useBodyParser('json', { limit: process.env.HTTP_BODY_LIMIT || '64kb' });
    const config = app.get<ServiceConfig>(SERVICE_CONFIG);
    await app.listen(config.port, config.host);
    logger.log(`${name} listening on http://${config.host}:${config.port}`);
  } catch (error) {
    logger.error(error instanceof ConfigError ? error.message : ((error as Error).stack ?? String(error)));
    process.exit(1);
  }
}
