import { ApiBody, ApiHeader, ApiTags } from '@nestjs/swagger';
import { Body, Controller, ForbiddenException, Get, Headers, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { Caller, isAdmin } from '@app/auth';
import { namespaceOf } from '@app/catalogue';
import { KNEX } from '@app/database';
import { BodyShape, CurrentCaller, optionalInteger, readBody, requireIdempotencyKey, requireMayRead, requireText, requireUuid, schemaOf } from '@app/service';
import { QuotaSummary, summarise } from '../ledger/quota-account';
import { grantQuota } from './grant-quota';
import { startingGrants } from '../partners/allowances';
import { budgetOf } from '../partners/partner-budgets';
import { QUOTA_CONFIG, QuotaConfig } from '../quota.config';

/** POST /quota/{userId}/grants's body: checked with it, documented from it. */
const grantShape: BodyShape = { fields: { amount: { kind: 'integer', min: 1, max: 1_000_000 } }, required: ['amount'], closed: false };

@ApiTags('quota')
@Controller('quota')
export class QuotaController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(QUOTA_CONFIG) private readonly config: QuotaConfig,
  ) {}

  /** A user the service has not seen yet has what it would start with (see Allowances), without an account being created. */
  @Get(':userId')
  async get(@CurrentCaller() caller: Caller, @Param('userId') userId: string): Promise<QuotaSummary> {
    requireText(userId, 'userId', { max: 128 });
    requireMayRead(caller, userId);
    const known = await this.knex('quota_accounts').where({ user_id: userId }).first();
    return known ? summarise(this.knex, userId) : { userId, balance: await this.startingGrant(userId), debited: 0, refunded: 0 };
  }

  /** A user's ledger, newest first: grants, debits, refunds, rejections, settlements; `taskId` narrows it to one task. */
  @Get(':userId/ledger')
  async ledger(@CurrentCaller() caller: Caller, @Param('userId') userId: string, @Query('taskId') taskId: unknown, @Query('limit') limit: unknown) {
    requireText(userId, 'userId', { max: 128 });
    requireMayRead(caller, userId);
    const query = this.knex('quota_ledger').where({ user_id: userId });
    if (taskId !== undefined) query.where({ task_id: requireUuid(taskId, 'taskId') });
    const rows = await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(optionalInteger(limit, 'limit', 100, { min: 1, max: 500 }));
    return {
      items: rows.map((r) => ({ kind: r.kind, amount: r.amount, taskId: r.task_id, eventId: r.event_id, at: new Date(r.created_at).toISOString() })),
    };
  }

  /** Admin only, under an Idempotency-Key. */
  @Post(':userId/grants')
  @ApiHeader({ name: 'Idempotency-Key', required: true })
  @ApiBody({ schema: schemaOf(grantShape) })
  async grant(
    @CurrentCaller() caller: Caller,
    @Param('userId') userId: string,
    @Headers('idempotency-key') key: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<QuotaSummary> {
    if (!isAdmin(caller)) throw new ForbiddenException('only an admin grants quota');
    requireText(userId, 'userId', { max: 128 });
    const { amount } = readBody(body, grantShape, 'body') as { amount: number };
    const result = await grantQuota(this.knex, userId, amount, requireIdempotencyKey(key), this.config);
    res.status(result.status);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.body;
  }

  private async startingGrant(userId: string): Promise<number> {
    const namespace = namespaceOf(userId);
    const budgets = new Map(namespace === undefined ? [] : [[namespace, await budgetOf(this.knex, namespace, this.config.partnerDefaults)]]);
    return startingGrants([userId], this.config, budgets).get(userId)!;
  }
}
