import { Injectable } from '@nestjs/common';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { forgetWebhook } from './handlers/forget-webhook.handler';
import { notifyUsers } from './handlers/notify-user.handler';

@Injectable()
export class NotificationHandlers implements HandlerSource {
  constructor(private readonly deliveries: WebhookDeliveryWorker) {}

  handlers(): EventHandlers {
    const wakeDeliveries = () => this.deliveries.wake();
    return {
      TaskCompleted: setBased<'TaskCompleted'>((events, context) => notifyUsers(events, context, wakeDeliveries)),
      TaskFailed: setBased<'TaskFailed'>((events, context) => notifyUsers(events, context, wakeDeliveries)),
      UserErasureRequested: forgetWebhook,
    };
  }
}
