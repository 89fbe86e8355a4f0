import { Logger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, logLevelsFrom, SERVICE_CONFIG, ServiceConfig } from '@app/config';

/** Boots a service: validated config, shutdown hooks for SIGTERM/SIGINT, HTTP on its port. */
export async function bootstrapService(module: Type<unknown>, name: string): Promise<void> {
  const logger = new Logger(name);
  try {
    const app = await NestFactory.create(module, { abortOnError: false, logger: logLevelsFrom(process.env.LOG_LEVEL) });
    app.enableShutdownHooks();
    const config = app.get<ServiceConfig>(SERVICE_CONFIG);
    await app.listen(config.port, config.host);
    logger.log(`${name} listening on http://${config.host}:${config.port}`);
  } catch (error) {
    logger.error(error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error));
    process.exit(1);
  }
}
