import { Inject, Injectable } from '@nestjs/common';
import type { EventHandlers, HandlerSource } from '@app/messaging';
import { adoptRequest } from './handlers/adopt-request.handler';
import { recordInTimeline } from './handlers/record-in-timeline.handler';
import { TASKS_CONFIG, TasksConfig } from './tasks.config';

/** Outside requests are adopted or rejected; every other event of a task joins its timeline. */
@Injectable()
export class TasksHandlers implements HandlerSource {
  constructor(@Inject(TASKS_CONFIG) private readonly config: TasksConfig) {}

  handlers(): EventHandlers {
    return {
      TaskRequested: (event, context) => adoptRequest(event, context, this.config),
      QuotaDebited: recordInTimeline,
      QuotaRejected: recordInTimeline,
      GenerationStarted: recordInTimeline,
      GenerationRetryScheduled: recordInTimeline,
      GenerationSucceeded: recordInTimeline,
      GenerationFailed: recordInTimeline,
      QuotaRefunded: recordInTimeline,
      NotificationSent: recordInTimeline,
    };
  }
}
