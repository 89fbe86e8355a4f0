import { Injectable } from '@nestjs/common';
import type { EventHandlers, HandlerContext, HandlerSource } from '@app/messaging';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { notifyUser } from './handlers/notify-user.handler';

@Injectable()
export class NotificationHandlers implements HandlerSource {
  constructor(private readonly deliveries: WebhookDeliveryWorker) {}

  handlers(): EventHandlers {
    const notify = async (event: Parameters<typeof notifyUser>[0], context: HandlerContext) => {
      const toDeliver = await notifyUser(event, context);
      if (toDeliver)
        void context.trx.executionPromise.then(
          () => this.deliveries.wake(),
          () => undefined,
        );
    };
    return { TaskCompleted: notify, TaskFailed: notify };
  }
}
