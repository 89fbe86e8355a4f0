import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';

/** Forgets Idempotency-Keys past their expiry, every few minutes. */
@Injectable()
export class ExpiredKeysCleaner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('idempotency-keys');
  private timer?: NodeJS.Timeout;

  constructor(@Inject(KNEX) private readonly knex: Knex) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.clean(), 5 * 60_000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async clean(): Promise<number> {
    try {
      const deleted = await this.knex('idempotency_keys').where('expires_at', '<', this.knex.fn.now()).delete();
      if (deleted) this.logger.log(`forgot ${deleted} expired Idempotency-Keys`);
      return deleted;
    } catch (error) {
      this.logger.warn(`cleaning expired keys failed: ${(error as Error).message}`);
      return 0;
    }
  }
}
