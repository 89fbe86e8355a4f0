import { Inject, Injectable } from '@nestjs/common';
import type { EventType } from '@app/events';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { adoptCancel } from './handlers/adopt-cancel.handler';
import { adoptRequest } from './handlers/adopt-request.handler';
import { recordInTimeline } from './handlers/record-in-timeline.handler';
import { TASKS_CONFIG, TasksConfig } from './tasks.config';
import { recordErasureAnswer } from './erasure/record-erasure-answer.handler';
import { PERSONAL_DATA, PersonalData } from '@app/personal-data';

/** Outside requests and cancels are adopted or rejected; every other event of a task joins its timeline; services' answers to an erasure are counted. */
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
