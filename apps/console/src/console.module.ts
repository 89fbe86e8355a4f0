import { Controller, Get, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { loadAuthConfig, Public, TokenVerifier } from '@app/auth';
import { createRootLogger, loggingModule } from '@app/service';
import { CONSOLE_CONFIG, loadConsoleConfig } from './console.config';
import { AssetsController } from './http/assets.controller';
import { BulkCancelController } from './http/bulk-cancel.controller';
import { DeadLettersController } from './http/dead-letters.controller';
import { OverviewController } from './http/overview.controller';
import { SharesController } from './http/shares.controller';
import { QuotaController } from './http/quota.controller';
import { SignInController } from './http/sign-in.controller';
import { TasksController } from './http/tasks.controller';
import { DeadLetterDesk } from './platform/dead-letter-desk';
import { CONSOLE_TOKEN_VERIFIER, ConsoleSessionGuard } from './session/console-session.guard';
import { CsrfTokens } from './session/session';

@Controller('health')
class ConsoleHealthController {
  /** The console holds no state of its own: up is healthy; what it reads has its own /health. */
  @Public()
  @Get()
  health() {
    return { status: 'ok' };
  }
}

/**
 * The operator console: server-rendered pages over the services' HTTP APIs (with the operator's own
 * token) and the dead-letter library (as the `console` Kafka principal). No database of its own.
 */
@Module({
  imports: [loggingModule(createRootLogger('console'))],
  controllers: [
    ConsoleHealthController,
    AssetsController,
    SignInController,
    OverviewController,
    TasksController,
    DeadLettersController,
    QuotaController,
    SharesController,
    BulkCancelController,
  ],
  providers: [
    { provide: CONSOLE_CONFIG, useFactory: () => loadConsoleConfig() },
    { provide: CONSOLE_TOKEN_VERIFIER, useFactory: () => new TokenVerifier(loadAuthConfig()) },
    { provide: CsrfTokens, useFactory: () => new CsrfTokens() },
    { provide: APP_GUARD, useClass: ConsoleSessionGuard },
    DeadLetterDesk,
  ],
})
export class ConsoleModule {}
