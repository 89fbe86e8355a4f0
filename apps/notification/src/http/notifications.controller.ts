import { Controller, Get, Inject, Query } from '@nestjs/common';
import type { Knex } from 'knex';
import { Caller } from '@app/auth';
import { KNEX } from '@app/database';
import { CurrentCaller, optionalInteger, requireMayRead, requireText, requireUuid } from '@app/service';

@Controller()
export class NotificationsController {
  constructor(@Inject(KNEX) private readonly knex: Knex) {}

  /** A user's notifications, newest first; `taskId` narrows them to one task's. */
  @Get('notifications')
  async list(@CurrentCaller() caller: Caller, @Query('userId') userId: unknown, @Query('limit') limit: unknown, @Query('taskId') taskId: unknown) {
    const owner = userId === undefined ? caller.userId : requireText(userId, 'userId query parameter', { max: 128 });
    requireMayRead(caller, owner);
    const query = this.knex('notifications').where({ user_id: owner });
    if (taskId !== undefined) query.where({ task_id: requireUuid(taskId, 'taskId') });
    const rows = await query.orderBy('created_at', 'desc').limit(optionalInteger(limit, 'limit', 50, { min: 1, max: 200 }));
    return {
      items: rows.map((r) => ({
        taskId: r.task_id,
        outcome: r.outcome,
        eventId: r.event_id,
        message: r.message,
        channel: r.channel,
        status: r.status,
        deliveryAttempts: r.delivery_attempts,
        nextDeliveryAt: r.status === 'pending' && r.next_delivery_at ? new Date(r.next_delivery_at).toISOString() : null,
        lastError: r.last_error,
        createdAt: new Date(r.created_at).toISOString(),
        deliveredAt: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
      })),
    };
  }
}
