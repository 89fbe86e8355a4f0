import { Injectable } from '@nestjs/common';
import { HandlersOf, HandlerSource, setBased } from '@app/messaging';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { notifyUsers } from './reactions/task-outcome/notify-user.handler';
import { forgetWebhook } from './reactions/user-erasure-requested/forget-webhook.handler';

/**
 * What notification reacts to, each reaction in apps/notification/src/reactions/<event>/:
 * - TaskCompleted, TaskFailed → a notification (webhook pending, or inbox with NotificationSent);
 * - UserErasureRequested → the user's webhook deleted, pending deliveries told in the inbox
 *   (NotificationSent), UserDataErased.
 */
@Injectable()
export class NotificationHandlers implements HandlerSource<'notification'> {
  constructor(private readonly deliveries: WebhookDeliveryWorker) {}

  handlers(): HandlersOf<'notification'> {
    const wakeDeliveries = () => this.deliveries.wake();
    return {
      TaskCompleted: setBased<'TaskCompleted'>((events, context) => notifyUsers(events, context, wakeDeliveries)),
      TaskFailed: setBased<'TaskFailed'>((events, context) => notifyUsers(events, context, wakeDeliveries)),
      UserErasureRequested: forgetWebhook,
    };
  }
}
