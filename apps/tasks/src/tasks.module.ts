import { Module } from '@nestjs/common';
import { ServiceModule } from '@app/service';
import { tasksMigrations } from './migrations';

@Module({
  imports: [ServiceModule.forRoot({ service: 'tasks', migrations: tasksMigrations })],
})
export class TasksModule {}
