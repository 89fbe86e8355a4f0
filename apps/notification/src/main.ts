import './instrument';
import { runService } from '@app/service';
import { notificationMigrations } from './migrations';
import { NotificationModule } from './notification.module';

void runService(NotificationModule, 'notification', notificationMigrations);
