import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { loadAuthConfig } from '@app/auth';
import { ConfigError, configurationProblems, loadHttpLimits, loadServiceConfig, SERVICE_CONFIG, ServiceConfig, ServiceName } from '@app/config';
import { loadMessagingConfig } from '@app/messaging';
import type { Migration } from '@app/database';
import { migrateCommand } from './migrate-command';
import { applyHttpLimits } from './http-limits';
import { createRootLogger } from './logging';
import { serveOpenApi } from './openapi';
import { ProblemDetailsFilter } from './problem-details.filter';

/**
 * Checks every setting the service reads first — its own loaders, and the service, messaging and
 * token settings every service has — and refuses to start with all the problems listed at once.
 * `main.js migrate <action>` runs the migration command; anything else boots the service.
 */
export async function runService(module: Type<unknown>, name: ServiceName, migrations: Migration[], loaders: Array<() => unknown> = []): Promise<void> {
  const problems = configurationProblems([
    () => loadServiceConfig(name),
    () => loadMessagingConfig(),
    () => loadAuthConfig(),
    () => loadHttpLimits(),
    ...loaders,
  ]);
  if (problems.length) {
    createRootLogger(name).fatal(`invalid configuration for ${name}:\n  - ${problems.join('\n  - ')}`);
    process.exit(1);
  }
  if (process.argv[2] !== 'migrate') return bootstrapService(module, name);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const code = await migrateCommand(name, migrations, process.argv[3], print).catch((error: Error) => {
    print(`${name}: ${error.message}`);
    return 1;
  });
  process.exit(code);
}

/** Boots a service: validated config, JSON logs, shutdown hooks for SIGTERM/SIGINT, HTTP on its port within its limits. */
export async function bootstrapService(module: Type<unknown>, name: string): Promise<void> {
  try {
    const app = await NestFactory.create<NestExpressApplication>(module, { abortOnError: false, bufferLogs: true });
    const logger = app.get(Logger);
    app.useLogger(logger);
    app.enableShutdownHooks();
    app.useGlobalFilters(new ProblemDetailsFilter());
    app.useBodyParser('json', { limit: process.env.HTTP_BODY_LIMIT || '64kb' });
    serveOpenApi(app, name, `The ${name} service of the task platform: its HTTP API. Errors are application/problem+json.`);
    const config = app.get<ServiceConfig>(SERVICE_CONFIG);
    applyHttpLimits(app.getHttpServer(), loadHttpLimits(process.env, name));
    await app.listen(config.port, config.host);
    logger.log(`${name} listening on http://${config.host}:${config.port}`, name);
  } catch (error) {
    createRootLogger(name).fatal(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}
