import { Inject, Injectable } from '@nestjs/common';
import type { DomainEvent } from '@app/events';
import type { EventHandlers, HandlerContext, HandlerSource } from '@app/messaging';
import { applyToTask } from './projection/apply-to-task';
import { handleTaskRequested } from './submit/adopt-request';
import { TASKS_CONFIG, TasksConfig } from './tasks.config';

const apply = (event: DomainEvent, { trx, publish }: HandlerContext) => applyToTask(trx, event, publish);

/** Every event that says something of a task moves its projection and joins its timeline. */
@Injectable()
export class TasksHandlers implements HandlerSource {
  constructor(@Inject(TASKS_CONFIG) private readonly config: TasksConfig) {}

  handlers(): EventHandlers {
    return {
      TaskRequested: (event, context) => handleTaskRequested(event, context, this.config),
      QuotaDebited: apply,
      QuotaRejected: apply,
      GenerationStarted: apply,
      GenerationRetryScheduled: apply,
      GenerationSucceeded: apply,
      GenerationFailed: apply,
      QuotaRefunded: apply,
      NotificationSent: apply,
    };
  }
}
