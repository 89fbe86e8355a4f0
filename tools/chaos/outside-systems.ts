import { randomUUID } from 'node:crypto';
import { letGo } from '@app/failures';
import { logLevel } from 'kafkajs';
import { DomainEvent, newEvent, topicFor } from '@app/events';
import { externalNamespace, namespaceOf, PartnerPrincipal, partnerPrincipal, partnerTopicFor } from '@app/catalogue';
import { createKafka, EventCodec, IdempotentProducer, localKafkaCredentials, localRegistryCredentials } from '@app/kafka';
import { kafkaBootstrap, registryUrl, StackConfig } from '../stack/stack.config';
import type { Behaviour, History } from './history';
import type { Random } from './random';
import { hostileRequest, hostilities, Hostility, Mutation, notARequest } from './hostile-requests';

/** Where a producer let go says why: nowhere (the history has what matters). */
const quiet = { debug: () => undefined, warn: () => undefined };

/** The campaign's partners (added with the stack); besides theirs, users are `external:`'s or HTTP users of no namespace. */
export const campaignPartners = ['alpha', 'beta'] as const;

export interface Sent {
  user: string;
  key: string;
  body: string;
  behaviour: Behaviour;
}

/** One outside system: who it is, where it writes its requests, with its own credentials. */
interface Sender {
  name: string;
  topic: string;
  producer: IdempotentProducer;
  codec: EventCodec;
}

/**
 * The outside systems writing TaskRequested on Kafka, each with its own credentials: the partners
 * `alpha` and `beta`, each for its own users (`alpha:…`) on its own topic, and `external` on the
 * shared topic for its own (`external:…`). One request in five is hostile (written to be refused), and
 * one in ten of the rest is forged for a user outside its sender's namespace — another partner's, or an HTTP
 * user's (refused as NOT_YOUR_USER, charging nobody).
 */
export class OutsideSystems {
  private readonly senders = new Map<string, Sender>();

  constructor(
    private readonly stack: StackConfig,
    private readonly history: History,
    private readonly random: Random,
    private readonly users: string[],
    /**
     * Whether `external` may be made to forge for HTTP users: not while a release before the rule runs beside
     * the head (a rolling deploy), since that release acted for them and takes such a request in by its rule.
     */
    private readonly externalRefusesHttpUsers = true,
  ) {}

  async connect(): Promise<void> {
    for (const name of ['external', ...campaignPartners]) this.senders.set(name, await this.connectSender(name));
  }

  /** A sender made again with its credentials as they now are (a partner added back has a new password). */
  async reconnect(name: string): Promise<void> {
    const before = this.senders.get(name);
    this.senders.set(name, await this.connectSender(name));
    await before?.producer.disconnect().catch(letGo(`${name}'s old producer is let go`, quiet));
  }

  async disconnect(): Promise<void> {
    for (const sender of this.senders.values()) await sender.producer.disconnect().catch(() => undefined);
  }

  private async connectSender(name: string): Promise<Sender> {
    const principal: 'external' | PartnerPrincipal = name === 'external' ? 'external' : partnerPrincipal(name);
    const kafka = createKafka(`chaos-${name}`, kafkaBootstrap(this.stack), {
      sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials(principal, this.stack.stackDir)! },
      ssl: undefined,
      // Its refusals while the broker is down are in the history; the log would only repeat them.
      logLevel: logLevel.NOTHING,
    });
    // Idempotent with acks=all, as every producer of the platform: what it is told was written, was.
    const producer = new IdempotentProducer(kafka);
    await producer.connect();
    const codec = new EventCodec(registryUrl(this.stack), '', { auth: localRegistryCredentials(principal, this.stack.stackDir) });
    const topic = name === 'external' ? topicFor('TaskRequested') : partnerTopicFor(name, 'TaskRequested');
    return { name, topic, producer, codec };
  }

  /** Every hostility once, each from a sender picked at random, so that no run leaves one out (the rest come by chance). */
  async everyHostilityOnce(): Promise<void> {
    const namespaced = this.users.filter((user) => namespaceOf(user) !== undefined);
    for (const [i, hostility] of hostilities.entries()) {
      const user = this.random.pick(namespaced);
      const sent: Sent = { user, key: `hostile-${i}`, body: '{}', behaviour: 'success' };
      await this.send(this.senders.get(namespaceOf(user)!)!, sent, hostileRequest(hostility, this.random, user, sent.key), { hostile: hostility });
    }
  }

  /** A request of `sent.user`'s outside system; sometimes the same key again under a new taskId (a DUPLICATE). */
  async publish(sent: Sent, twice: boolean): Promise<void> {
    const sender = this.senders.get(namespaceOf(sent.user) ?? externalNamespace)!;
    const { input, reportType } = JSON.parse(sent.body) as { input: unknown; reportType: string };
    if (this.random.chance(0.2)) {
      const hostility = this.random.pick(hostilities);
      return this.send(sender, sent, hostileRequest(hostility, this.random, sent.user, sent.key), { hostile: hostility });
    }
    const httpUserOfExternal = (user: string) => sender.name === externalNamespace && namespaceOf(user) === undefined;
    const victims = this.users.filter((user) => namespaceOf(user) !== sender.name && (this.externalRefusesHttpUsers || !httpUserOfExternal(user)));
    if (victims.length > 0 && this.random.chance(0.1)) {
      const victim = this.random.pick(victims);
      const origin = { taskId: randomUUID(), userId: victim, correlationId: randomUUID(), causationId: null };
      const event = newEvent('TaskRequested', { idempotencyKey: sent.key, reportType, input: JSON.stringify(input) }, origin, sender.name);
      return this.send(sender, { ...sent, user: victim }, { event, messageKey: origin.taskId }, { forged: true });
    }
    for (let copy = 0; copy < (twice ? 2 : 1); copy++) {
      const taskId = randomUUID();
      const origin = { taskId, userId: sent.user, correlationId: randomUUID(), causationId: null };
      const event = newEvent('TaskRequested', { idempotencyKey: sent.key, reportType, input: JSON.stringify(input) }, origin, sender.name);
      await this.send(sender, sent, { event, messageKey: taskId });
    }
  }

  /** One message on the sender's request topic, and what the broker answered, in the history. */
  private async send(
    sender: Sender,
    sent: Sent,
    { event, messageKey, mutate }: { event: DomainEvent; messageKey: string; mutate?: Mutation },
    how: { hostile?: Hostility; forged?: boolean } = {},
  ): Promise<void> {
    const entry = {
      kind: 'publish' as const,
      at: Date.now(),
      user: sent.user,
      key: sent.key,
      taskId: messageKey,
      behaviour: sent.behaviour,
      topic: sender.topic,
      ...how,
    };
    try {
      const encoded = await sender.codec.encode(event);
      const value = mutate ? await mutate(encoded, (other) => sender.codec.encode(other)) : encoded;
      const [placed] = await sender.producer.send({
        topic: sender.topic,
        acks: -1,
        messages: [{ key: messageKey, value, headers: { eventId: event.eventId, eventType: event.eventType } }],
      });
      // A value of another type is not a TaskRequested the topic can be checked to hold.
      const eventId = how.hostile && notARequest.has(how.hostile) ? undefined : event.eventId;
      this.history.record({ ...entry, acknowledged: true, eventId, partition: placed.partition, offset: Number(placed.baseOffset) });
    } catch (error) {
      this.history.record({ ...entry, acknowledged: false, error: (error as Error).message });
    }
  }
}
