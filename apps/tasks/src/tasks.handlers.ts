import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';
import type { EventType } from '@app/events';
import { EventCodec } from '@app/kafka';
import { HandlersOf, HandlerSource, KAFKA, outbox, setBased } from '@app/messaging';
import { PartnerDirectory } from './partners/partner-directory';
import { adoptCancel } from './reactions/task-cancel-requested/adopt-cancel.handler';
import { adoptRequest } from './reactions/task-requested/adopt-request.handler';
import { recordInTimeline } from './reactions/task-events/record-in-timeline.handler';
import { TASKS_CONFIG, TasksConfig } from './tasks.config';
import { recordErasureAnswer } from './reactions/user-data-erased/record-erasure-answer.handler';
import { PERSONAL_DATA, PersonalData } from '@app/personal-data';

/**
 * What tasks reacts to, each reaction in reactions/<event>/:
 * - TaskRequested (outside: the shared topic or a partner's) → TaskAccepted (input sealed; UserDataKey
 *   with a user's first task) or TaskRejected (a copy to the partner that asked);
 * - TaskCancelRequested (outside) → TaskCancelled and TaskFailed{CANCELLED}, or TaskCancelRejected;
 * - every other event of a task → its timeline and state (projection/), and its one outcome,
 *   TaskCompleted or TaskFailed, when it ends;
 * - UserDataErased → the erasure's answers counted (GET /users/{userId}/data).
 * An outcome of a partner's user is also published on that partner's own topic (see PartnerDirectory).
 */
@Injectable()
export class TasksHandlers implements HandlerSource<'tasks'>, OnModuleDestroy {
  private readonly partners: PartnerDirectory;

  constructor(
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
    @Inject(PERSONAL_DATA) private readonly personal: PersonalData,
    @Inject(KAFKA) kafka: Kafka,
    codec: EventCodec,
    @Inject(KNEX) knex: Knex,
  ) {
    this.partners = new PartnerDirectory(kafka, knex, codec.topicPrefix);
    outbox.copyEvents((event, trx) => this.partners.copiesOf(event, trx));
  }

  moreTopics(): Promise<string[]> {
    return this.partners.requestTopics();
  }

  async onModuleDestroy(): Promise<void> {
    await this.partners.stop();
  }

  handlers(): HandlersOf<'tasks'> {
    const timeline = setBased<EventType>(recordInTimeline);
    const requester = (topic: string) => this.partners.requesterOf(topic);
    return {
      TaskRequested: (event, context) => adoptRequest(event, context, this.config, this.personal, requester(context.topic)),
      TaskCancelRequested: (event, context) => adoptCancel(event, context, requester(context.topic)),
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
