import './instrument';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { ConfigError, loadHttpLimits } from '@app/config';
import { applyHttpLimits, createRootLogger } from '@app/service';
import { CONSOLE_CONFIG, ConsoleConfig } from './console.config';
import { ConsoleModule } from './console.module';
import { ConsoleErrorsFilter } from './http/console-errors.filter';

/**
 * Helmet's headers (test/console/console.e2e.spec.ts says which, and why each), with a policy of our
 * own: pages load only what the console serves itself, nothing frames them, forms post only here.
 */
const securityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      scriptSrc: ["'self'"],
      connectSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
});

/** Pages hold an operator's view of users' data: no cache keeps them. */
function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('cache-control', 'no-store');
  next();
}

async function bootstrap(): Promise<void> {
  try {
    const app = await NestFactory.create<NestExpressApplication>(ConsoleModule, { bufferLogs: true });
    const logger = app.get(Logger);
    app.useLogger(logger);
    app.enableShutdownHooks();
    app.use(securityHeaders, noStore);
    app.useGlobalFilters(new ConsoleErrorsFilter());
    app.useBodyParser('urlencoded', { extended: false, limit: '16kb' });
    const config = app.get<ConsoleConfig>(CONSOLE_CONFIG);
    applyHttpLimits(app.getHttpServer(), loadHttpLimits(process.env, 'console'));
    await app.listen(config.port, config.host);
    logger.log(`console listening on http://${config.host}:${config.port}`, 'console');
  } catch (error) {
    createRootLogger('console').fatal(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}

void bootstrap();
