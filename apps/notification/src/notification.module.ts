import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { notificationMigrations } from './migrations';

@Module({
  imports: [ServiceModule.forRoot({ service: 'notification', migrations: notificationMigrations })],
})
export class NotificationModule {}
