import { Inject, Injectable } from '@nestjs/common';
import type { EventType } from '@app/events';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { adoptCancel } from './handlers/adopt-cancel.handler';
import { adoptRequest } from './handlers/adopt-request.handler';
import { recordInTimeline } from './handlers/record-in-timeline.handler';
import { TASKS_CONFIG, TasksConfig } from './tasks.config';

/** Outside requests and cancels are adopted or rejected; every other event of a task joins its timeline. */
@Injectable()
export class TasksHandlers implements HandlerSource {
  constructor(@Inject(TASKS_CONFIG) private readonly config: TasksConfig) {}

  handlers(): EventHandlers {
    const timeline = setBased<EventType>(recordInTimeline);
    return {
      TaskRequested: (event, context) => adoptRequest(event, context, this.config),
      TaskCancelRequested: adoptCancel,
      QuotaDebited: timeline,
      QuotaRejected: timeline,
      GenerationStarted: timeline,
      GenerationRetryScheduled: timeline,
      GenerationSucceeded: timeline,
      GenerationFailed: timeline,
      QuotaRefunded: timeline,
      NotificationSent: timeline,
    };
  }
}
