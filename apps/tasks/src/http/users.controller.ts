import { ApiHeader, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Controller, Delete, ForbiddenException, Get, Headers, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { Caller, isAdmin } from '@app/auth';
import { KNEX } from '@app/database';
import { userIdPattern } from '@app/events';
import { CurrentCaller, requireIdempotencyKey, requireText } from '@app/service';
import { eraseUser } from '../erasure/erase-user';
import { latestErasureOf } from '../erasure/erasure-status';
import { TASKS_CONFIG, TasksConfig } from '../tasks.config';

const userIdRule = { max: 128, pattern: userIdPattern };

/** A user's personal data: erased on an admin's request (docs/privacy.md). */
@ApiTags('users')
@Controller('users')
export class UsersController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
  ) {}

  /** Every service forgets the user's key and personal rows; ids, states, amounts and times stay. */
  @Delete(':userId/data')
  @ApiHeader({ name: 'Idempotency-Key', required: true, description: 'the same key again: the same erasure (Idempotent-Replayed: true)' })
  @ApiResponse({ status: 202, description: 'erasing: `{erasureId, userId, status: ERASING, services}`; poll `Location` until ERASED' })
  @ApiResponse({ status: 403, description: 'only an admin erases' })
  async erase(
    @CurrentCaller() caller: Caller,
    @Headers('idempotency-key') key: string | undefined,
    @Param('userId') userId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    if (!isAdmin(caller)) throw new ForbiddenException('only an admin erases a user’s data');
    const user = requireText(userId, 'userId', userIdRule);
    const answer = await eraseUser(this.knex, this.config, caller.userId, user, requireIdempotencyKey(key));
    res.status(answer.status).location(`/users/${encodeURIComponent(user)}/data`);
    if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return answer.body;
  }

  /** The user's latest erasure: ERASING until every service has answered, then ERASED. */
  @Get(':userId/data')
  @ApiResponse({ status: 200, description: '`{erasureId, userId, status, services: {<service>: {erasedAt, erased}}}`' })
  @ApiResponse({ status: 404, description: 'the user was never erased' })
  async erasure(@CurrentCaller() caller: Caller, @Param('userId') userId: string) {
    if (!isAdmin(caller)) throw new ForbiddenException('only an admin reads erasures');
    const user = requireText(userId, 'userId', userIdRule);
    const status = await latestErasureOf(this.knex, user);
    if (!status) throw new NotFoundException(`user ${user} was never erased`);
    return status;
  }
}
