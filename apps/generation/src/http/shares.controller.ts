import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, ForbiddenException, Get, Inject, Param, Put, Query } from '@nestjs/common';
import type { Knex } from 'knex';
import { Caller, isAdmin, isOperator } from '@app/auth';
import { KNEX } from '@app/database';
import { BodyShape, CurrentCaller, optionalInteger, readBody, requireMayRead, requireText, schemaOf } from '@app/service';
import { GENERATION_CONFIG, GenerationConfig } from '../generation.config';
import { busiestUsers, setShare, shareChanges, shareOf, UserShare } from '../shares/user-shares';

/** PUT /users/{userId}/share's body: checked with it, documented from it. */
const shareShape: BodyShape = { fields: { maxRunning: { kind: 'integer', min: 1, max: 1000 } }, required: ['maxRunning'], closed: true };

const requireOperator = (caller: Caller) => {
  if (!isOperator(caller)) throw new ForbiddenException('only an operator (admin or viewer) reads generation’s shares of other users');
};
const requireAdmin = (caller: Caller) => {
  if (!isAdmin(caller)) throw new ForbiddenException('only an admin sets a user’s share');
};

/**
 * Users' shares of generation: how many attempts each may run at once across instances (the default
 * GENERATION_MAX_PER_USER, or one an admin set), what they run and have due now, and who changed it.
 */
@ApiTags('shares')
@Controller('users')
export class SharesController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(GENERATION_CONFIG) private readonly config: GenerationConfig,
  ) {}

  /** Operators: the users holding generation now, by attempts running, then due. */
  @Get('busiest')
  async busiest(@CurrentCaller() caller: Caller, @Query('limit') limit: unknown): Promise<{ items: UserShare[] }> {
    requireOperator(caller);
    return { items: await busiestUsers(this.knex, optionalInteger(limit, 'limit', 10, { min: 1, max: 100 }), this.config.maxPerUser) };
  }

  @Get(':userId/share')
  async get(@CurrentCaller() caller: Caller, @Param('userId') userId: string): Promise<UserShare> {
    requireText(userId, 'userId', { max: 128 });
    requireMayRead(caller, userId);
    return shareOf(this.knex, userId, this.config.maxPerUser);
  }

  /** Operators: every change of the user's share, newest first. */
  @Get(':userId/share/changes')
  async changes(@CurrentCaller() caller: Caller, @Param('userId') userId: string) {
    requireText(userId, 'userId', { max: 128 });
    requireOperator(caller);
    return { items: await shareChanges(this.knex, userId) };
  }

  /** Admin only; idempotent: setting the share a user has changes nothing and is not audited again. */
  @Put(':userId/share')
  @ApiBody({ schema: schemaOf(shareShape) })
  async set(@CurrentCaller() caller: Caller, @Param('userId') userId: string, @Body() body: unknown): Promise<UserShare> {
    requireAdmin(caller);
    requireText(userId, 'userId', { max: 128 });
    const { maxRunning } = readBody(body, shareShape, 'body') as { maxRunning: number };
    return (await setShare(this.knex, userId, maxRunning, caller.userId, this.config.maxPerUser)).share;
  }

  /** Admin only: the user has the default share again. */
  @Delete(':userId/share')
  async reset(@CurrentCaller() caller: Caller, @Param('userId') userId: string): Promise<UserShare> {
    requireAdmin(caller);
    requireText(userId, 'userId', { max: 128 });
    return (await setShare(this.knex, userId, null, caller.userId, this.config.maxPerUser)).share;
  }
}
