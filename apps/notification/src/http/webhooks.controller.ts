import { ApiBody } from '@nestjs/swagger';
import { BadRequestException, Body, Controller, Delete, HttpCode, Inject, NotFoundException, Param, Post, Put } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { Caller } from '@app/auth';
import { KNEX } from '@app/database';
import { causedBy, DomainEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { BodyShape, CurrentCaller, readBody, requireMayActFor, requireText, schemaOf } from '@app/service';
import { NOTIFICATION_CONFIG, NotificationConfig } from '../notification.config';
import { SecretBox } from '../webhooks/secret-box';
import { WEBHOOK_POLICY } from '../webhooks/webhook-policy.provider';
import { refusalOf, UrlPolicy } from '../webhooks/webhook-url';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** A user's webhook: registered, rotated and removed by the user themself (or an admin). */
/** PUT /users/{userId}/webhook's body: checked with it, documented from it. */
const webhookShape: BodyShape = {
  fields: { url: { kind: 'text', max: 2048, description: 'https, to a public address', example: 'https://hooks.example.com/tasks' } },
  required: ['url'],
  closed: false,
};

@Controller('users/:userId/webhook')
export class WebhooksController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(NOTIFICATION_CONFIG) private readonly config: NotificationConfig,
    @Inject(WEBHOOK_POLICY) private readonly policy: UrlPolicy,
    private readonly box: SecretBox,
  ) {}

  /**
   * Registers (or replaces) the webhook; a URL that is not https (unless allowed), or that points
   * inside, is a 400. The answer carries the signing secret, once: only its sealed form is stored.
   */
  @Put()
  @ApiBody({ schema: schemaOf(webhookShape) })
  async register(@CurrentCaller() caller: Caller, @Param('userId') userId: string, @Body() body: unknown) {
    this.authorize(caller, userId);
    const { url } = readBody(body, webhookShape) as { url: string };
    const refusal = await refusalOf(url, this.policy);
    if (refusal) throw new BadRequestException(refusal);
    const secret = newSecret();
    const row = { user_id: userId, url, secret_sealed: this.box.seal(secret), previous_secret_sealed: null, previous_secret_until: null };
    await this.knex('webhooks').insert(row).onConflict('user_id').merge(['url', 'secret_sealed', 'previous_secret_sealed', 'previous_secret_until']);
    return { userId, url, secret };
  }

  /**
   * A new secret; for WEBHOOK_ROTATION_GRACE the old one keeps signing beside it, so a receiver can
   * switch without losing a delivery.
   */
  @Post('rotate')
  @HttpCode(200)
  async rotate(@CurrentCaller() caller: Caller, @Param('userId') userId: string) {
    this.authorize(caller, userId);
    const secret = newSecret();
    const previousValidUntil = new Date(Date.now() + this.config.rotationGraceMs);
    const updated = await this.knex('webhooks')
      .where({ user_id: userId })
      .update({ previous_secret_sealed: this.knex.ref('secret_sealed'), previous_secret_until: previousValidUntil, secret_sealed: this.box.seal(secret) });
    if (updated === 0) throw new NotFoundException(`${userId} has no webhook`);
    return { userId, secret, previousSecretValidUntil: previousValidUntil.toISOString() };
  }

  /** Stops deliveries: what was waiting for the webhook stays in the user's inbox, and counts as sent there. */
  @Delete()
  @HttpCode(204)
  async remove(@CurrentCaller() caller: Caller, @Param('userId') userId: string): Promise<void> {
    this.authorize(caller, userId);
    await this.knex.transaction(async (trx) => {
      if ((await trx('webhooks').where({ user_id: userId }).delete()) === 0) throw new NotFoundException(`${userId} has no webhook`);
      const waiting = await trx('notifications').where({ user_id: userId, status: 'pending' }).forUpdate();
      for (const n of waiting) {
        await trx('notifications').where({ id: n.id }).update({ channel: 'inbox', status: 'delivered', delivered_at: trx.fn.now(), next_delivery_at: null });
        await outbox.add(trx, causedBy(n.payload as DomainEvent, 'NotificationSent', { outcome: n.outcome, channel: 'inbox' }, 'notification'));
      }
    });
  }

  private authorize(caller: Caller, userId: string): void {
    requireText(userId, 'userId', { max: 128 });
    requireMayActFor(caller, userId);
  }
}
