import { Module } from '@nestjs/common';
import { personalDataProvider } from '@app/personal-data';
import { ServiceModule } from '@app/service';
import { UsersController } from './http/users.controller';
import { TaskDeadlineWatcher } from './deadline/task-deadline.watcher';
import { TasksController } from './http/tasks.controller';
import { PartnerLimitsController } from './http/partner-limits.controller';
import { OperatorRunsController } from './http/operator-runs.controller';
import { OperatorRunWorker } from './operator-runs/operator-run.worker';
import { tasksMigrations } from './migrations';
import { ExpiredKeysCleaner } from './submit/expired-keys.cleaner';
import { loadTasksConfig, TASKS_CONFIG } from './tasks.config';
import { TasksHandlers } from './tasks.handlers';

@Module({
  imports: [
    ServiceModule.forRoot({
      service: 'tasks',
      migrations: tasksMigrations,
      handlers: TasksHandlers,
      providers: [{ provide: TASKS_CONFIG, useFactory: () => loadTasksConfig() }, personalDataProvider],
    }),
  ],
  controllers: [TasksController, UsersController, PartnerLimitsController, OperatorRunsController],
  providers: [ExpiredKeysCleaner, TaskDeadlineWatcher, OperatorRunWorker],
})
export class TasksModule {}
