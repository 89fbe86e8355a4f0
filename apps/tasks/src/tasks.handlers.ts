import { Inject, Injectable } from '@nestjs/common';
import type { EventType } from '@app/events';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { adoptCancel } from './reactions/task-cancel-requested/adopt-cancel.handler';
import { adoptRequest } from './reactions/task-requested/adopt-request.handler';
import { recordInTimeline } from './reactions/task-events/record-in-timeline.handler';
import { TASKS_CONFIG, TasksConfig } from './tasks.config';
import { recordErasureAnswer } from './reactions/user-data-erased/record-erasure-answer.handler';
import { PERSONAL_DATA, PersonalData } from '@app/personal-data';

/**
 * What tasks reacts to, each reaction in reactions/<event>/:
 * - TaskRequested (outside) → TaskAccepted (input sealed; UserDataKey with a user's first task) or TaskRejected;
 * - TaskCancelRequested (outside) → TaskCancelled and TaskFailed{CANCELLED}, or TaskCancelRejected;
 * - every other event of a task → its timeline and state (projection/), and its one outcome,
 *   TaskCompleted or TaskFailed, when it ends;
 * - UserDataErased → the erasure's answers counted (GET /users/{userId}/data).
 */
@Injectable()
export class TasksHandlers implements HandlerSource {
  constructor(
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
    @Inject(PERSONAL_DATA) private readonly personal: PersonalData,
  ) {}

  handlers(): EventHandlers {
    const timeline = setBased<EventType>(recordInTimeline);
    return {
      TaskRequested: (event, context) => adoptRequest(event, context, this.config, this.personal),
      TaskCancelRequested: adoptCancel,
      QuotaDebited: timeline,
      QuotaRejected: timeline,
      GenerationStarted: timeline,
      GenerationRetryScheduled: timeline,
      GenerationSucceeded: timeline,
      GenerationFailed: timeline,
      QuotaRefunded: timeline,
      NotificationSent: timeline,
      UserDataErased: recordErasureAnswer,
    };
  }
}
