import './instrument';
import { runService } from '@app/service';
import { tasksMigrations } from './migrations';
import { TasksModule } from './tasks.module';

void runService(TasksModule, 'tasks', tasksMigrations);
