import { Controller, ForbiddenException, Get, Inject } from '@nestjs/common';
import type { Knex } from 'knex';
import { Caller, isAdmin } from '@app/auth';
import { KNEX } from '@app/database';
import { listParkedRows } from '@app/dead-letters';
import { CurrentCaller } from './auth.guard';

/** The service's outbox as an operator needs it: rows the relay parked (too large, or refused by their destination). */
@Controller('outbox')
export class OutboxController {
  constructor(@Inject(KNEX) private readonly knex: Knex) {}

  @Get('parked')
  async parked(@CurrentCaller() caller: Caller) {
    if (!isAdmin(caller) && !caller.roles.has('viewer')) throw new ForbiddenException('only an operator reads the outbox');
    const rows = await listParkedRows(this.knex);
    return { items: rows.map((r) => ({ ...r, parkedAt: r.parkedAt.toISOString(), retryAt: r.retryAt?.toISOString() ?? null })) };
  }
}
