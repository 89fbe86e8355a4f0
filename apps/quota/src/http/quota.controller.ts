import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';
import { requireInteger, requireObject, requireText } from '@app/service';
import { lockAccount, QuotaSummary, summarise } from '../ledger/quota-account';
import { QUOTA_CONFIG, QuotaConfig } from '../quota.config';

@Controller('quota')
export class QuotaController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(QUOTA_CONFIG) private readonly config: QuotaConfig,
  ) {}

  /** A user the service has not seen yet has the default quota, without an account being created. */
  @Get(':userId')
  async get(@Param('userId') userId: string): Promise<QuotaSummary> {
    requireText(userId, 'userId', { max: 128 });
    const known = await this.knex('quota_accounts').where({ user_id: userId }).first();
    return known ? summarise(this.knex, userId) : { userId, balance: this.config.defaultQuota, debited: 0, refunded: 0 };
  }

  @Post(':userId/grants')
  @HttpCode(201)
  async grant(@Param('userId') userId: string, @Body() body: unknown): Promise<QuotaSummary> {
    requireText(userId, 'userId', { max: 128 });
    const amount = requireInteger(requireObject(body, 'body').amount, 'amount', { min: 1, max: 1_000_000 });
    return this.knex.transaction(async (trx) => {
      await lockAccount(trx, userId, this.config.defaultQuota);
      await trx('quota_ledger').insert({ user_id: userId, kind: 'grant', amount });
      return summarise(trx, userId);
    });
  }
}
