import { Injectable } from '@nestjs/common';
import type { EventHandlers, HandlerSource } from '@app/messaging';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { notifyUser } from './handlers/notify-user.handler';

@Injectable()
export class NotificationHandlers implements HandlerSource {
  constructor(private readonly deliveries: WebhookDeliveryWorker) {}

  handlers(): EventHandlers {
    const wakeDeliveries = () => this.deliveries.wake();
    return {
      TaskCompleted: (event, context) => notifyUser(event, context, wakeDeliveries),
      TaskFailed: (event, context) => notifyUser(event, context, wakeDeliveries),
    };
  }
}
