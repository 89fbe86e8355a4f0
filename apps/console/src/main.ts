import './instrument';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { ConfigError } from '@app/config';
import { createRootLogger } from '@app/service';
import { CONSOLE_CONFIG, ConsoleConfig } from './console.config';
import { ConsoleModule } from './console.module';
import { ConsoleErrorsFilter } from './http/console-errors.filter';

/** Pages load only what the console serves itself; nothing frames them; forms post only here. */
function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'content-security-policy',
    "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cache-control', 'no-store');
  next();
}

async function bootstrap(): Promise<void> {
  try {
    const app = await NestFactory.create<NestExpressApplication>(ConsoleModule, { bufferLogs: true });
    const logger = app.get(Logger);
    app.useLogger(logger);
    app.enableShutdownHooks();
    app.use(securityHeaders);
    app.useGlobalFilters(new ConsoleErrorsFilter());
    app.useBodyParser('urlencoded', { extended: false, limit: '16kb' });
    const config = app.get<ConsoleConfig>(CONSOLE_CONFIG);
    await app.listen(config.port, config.host);
    logger.log(`console listening on http://${config.host}:${config.port}`, 'console');
  } catch (error) {
    createRootLogger('console').fatal(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}

void bootstrap();
