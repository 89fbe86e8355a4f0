import './instrument';
import { runService } from '@app/service';
import { loadTasksConfig } from './tasks.config';
import { tasksMigrations } from './migrations';
import { TasksModule } from './tasks.module';

void runService(TasksModule, 'tasks', tasksMigrations, [() => loadTasksConfig()]);
