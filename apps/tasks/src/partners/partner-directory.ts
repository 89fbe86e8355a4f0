import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import type { Knex } from 'knex';
import type { Admin, Kafka } from 'kafkajs';
import { DomainEvent, EventType } from '@app/events';
import { namespaceOf, partnerTopicFor, partnerTopicOf, partnerTopics } from '@app/catalogue';

/** Outcomes that follow a task to its user's partner; refusals go to the partner that asked (see the reactions). */
const followsTheUser: EventType[] = ['TaskCompleted', 'TaskFailed'];

/**
 * The partners tasks serves, as the broker shows them: a partner's request topics are those its
 * principal may read once `npm run partner:add` granted them, so listing the topics it may see
 * lists the partners. Asked by the consumer at each start and on a timer (a new partner's topics
 * are read within that interval); the partners found are the `partners` table, which the copies of
 * outcomes are decided by, so that an instance knows them from its first write, and a partner
 * removed (`npm run partner:remove`) leaves it at the next look.
 */
export class PartnerDirectory {
  private admin?: Promise<Admin>;

  constructor(
    private readonly kafka: Kafka,
    private readonly knex: Knex,
    private readonly topicPrefix: string,
  ) {}

  /** The request topics of every partner, read from the broker now; the partners found are kept. */
  async requestTopics(): Promise<string[]> {
    this.admin ??= this.connected(this.kafka.admin());
    const topics = await (await this.admin).listTopics();
    const found = topics.map((topic) => partnerTopicOf(topic, this.topicPrefix)).filter((t) => t?.eventType === 'TaskRequested');
    const partners = [...new Set(found.map((t) => t!.partner))].sort();
    await this.knex.transaction(async (trx) => {
      // A partner removed (its grants withdrawn) is no longer seen: its users' outcomes get no copy, which
      // its topic would refuse. One added back is seen again, and its parked copies are delivered.
      await trx('partners').whereNotIn('name', partners).delete();
      if (partners.length > 0) {
        await trx('partners')
          .insert(partners.map((name) => ({ name })))
          .onConflict('name')
          .ignore();
      }
    });
    return partners.flatMap((partner) => partnerTopics(partner, this.topicPrefix).requests);
  }

  /** The partner topics (behind the prefix) a copy of `event` goes to: its user's partner's, for an outcome. */
  async copiesOf(event: DomainEvent, trx: Knex.Transaction): Promise<string[]> {
    const partner = followsTheUser.includes(event.eventType) ? namespaceOf(event.userId) : undefined;
    if (!partner || !(await trx('partners').where({ name: partner }).first())) return [];
    return [partnerTopicFor(partner, event.eventType)];
  }

  /** The partner a request came from, by its topic; undefined for the shared request topics. */
  requesterOf(topic: string): string | undefined {
    return partnerTopicOf(topic, this.topicPrefix)?.partner;
  }

  async stop(): Promise<void> {
    // A client that never connected has nothing to close.
    const admin = await this.admin?.catch(letGo('the partners admin client never connected: nothing to close', new Logger('partners')));
    await admin?.disconnect();
  }

  /** An admin client once connected; a failed connection is tried again at the next ask. */
  private connected(admin: Admin): Promise<Admin> {
    // The failure goes to whoever asked; the client is forgotten, to be made again.
    return admin.connect().then(
      () => admin,
      (error: unknown) => {
        this.admin = undefined;
        throw error;
      },
    );
  }
}
