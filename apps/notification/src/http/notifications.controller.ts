import { BadRequestException, Body, Controller, Get, Inject, Param, Put, Query } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { Caller } from '@app/auth';
import { KNEX } from '@app/database';
import { CurrentCaller, optionalInteger, requireMayActFor, requireMayRead, requireObject, requireText } from '@app/service';

@Controller()
export class NotificationsController {
  constructor(@Inject(KNEX) private readonly knex: Knex) {}

  @Get('notifications')
  async list(@CurrentCaller() caller: Caller, @Query('userId') userId: unknown, @Query('limit') limit: unknown) {
    const owner = userId === undefined ? caller.userId : requireText(userId, 'userId query parameter', { max: 128 });
    requireMayRead(caller, owner);
    const rows = await this.knex('notifications')
      .where({ user_id: owner })
      .orderBy('created_at', 'desc')
      .limit(optionalInteger(limit, 'limit', 50, { min: 1, max: 200 }));
    return {
      items: rows.map((r) => ({
        taskId: r.task_id,
        outcome: r.outcome,
        eventId: r.event_id,
        message: r.message,
        channel: r.channel,
        status: r.status,
        deliveryAttempts: r.delivery_attempts,
        lastError: r.last_error,
        createdAt: new Date(r.created_at).toISOString(),
        deliveredAt: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
      })),
    };
  }

  /** Registers (or replaces) the user's webhook; the answer carries the signing secret, once. */
  @Put('users/:userId/webhook')
  async registerWebhook(@CurrentCaller() caller: Caller, @Param('userId') userId: string, @Body() body: unknown) {
    requireText(userId, 'userId', { max: 128 });
    requireMayActFor(caller, userId);
    const url = requireText(requireObject(body, 'the request body').url, 'url', { max: 2048 });
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new BadRequestException(`url must be an absolute http(s) URL, got "${url}"`);
    }
    if (!['http:', 'https:'].includes(parsed.protocol)) throw new BadRequestException(`url must be an absolute http(s) URL, got "${url}"`);
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    await this.knex('webhooks').insert({ user_id: userId, url, secret }).onConflict('user_id').merge(['url', 'secret']);
    return { userId, url, secret };
  }
}
