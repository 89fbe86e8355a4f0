import './instrument';
import { runService } from '@app/service';
import { loadNotificationConfig, loadSecretBox } from './notification.config';
import { notificationMigrations } from './migrations';
import { NotificationModule } from './notification.module';

void runService(NotificationModule, 'notification', notificationMigrations, [() => loadNotificationConfig(), () => loadSecretBox()]);
