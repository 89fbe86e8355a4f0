import './instrument';
import { bootstrapService } from '@app/service';
import { NotificationModule } from './notification.module';

void bootstrapService(NotificationModule, 'notification');
