import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';
import { NotificationsController } from './http/notifications.controller';
import { WebhooksController } from './http/webhooks.controller';
import { notificationMigrations } from './migrations';
import { loadNotificationConfig, NOTIFICATION_CONFIG } from './notification.config';
import { NotificationHandlers } from './notification.handlers';
import { webhookProviders } from './webhooks/webhook-policy.provider';

@Module({
  imports: [
    ServiceModule.forRoot({
      service: 'notification',
      migrations: notificationMigrations,
      handlers: NotificationHandlers,
      providers: [
        { provide: NOTIFICATION_CONFIG, useFactory: () => loadNotificationConfig() },
        { provide: WebhookDeliveryWorker, useClass: WebhookDeliveryWorker },
        ...webhookProviders,
      ],
    }),
  ],
  controllers: [NotificationsController, WebhooksController],
})
export class NotificationModule {}
