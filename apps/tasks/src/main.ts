import './instrument';
import { bootstrapService } from '@app/service';
import { TasksModule } from './tasks.module';

void bootstrapService(TasksModule, 'tasks');
