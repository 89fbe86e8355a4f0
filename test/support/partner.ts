import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, Producer } from 'kafkajs';
import { defaults } from '@app/config';
import { EventOf, EventType, newEvent } from '@app/events';
import { PartnerPrincipal, partnerPrincipal, partnerTopicFor } from '@app/catalogue';
import { EventCodec, localKafkaCredentials, localRegistryCredentials } from '@app/kafka';
import { addPartner, removePartner } from '../../tools/stack/partners';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { TopicReader } from './topic-reader';

/**
 * An outside system as a partner of one test world: added on the real stack (its SCRAM credential,
 * registry password, topics and ACLs, as `npm run partner:add` makes them), and acting with its own
 * credentials only — what it may do, the broker and the registry decide.
 */
export class PartnerClient {
  readonly principal: PartnerPrincipal;
  readonly kafka: Kafka;
  readonly codec: EventCodec;
  private producer?: Producer;
  private readers: TopicReader[] = [];

  private constructor(
    readonly name: string,
    readonly topicPrefix: string,
  ) {
    this.principal = partnerPrincipal(name);
    this.kafka = new Kafka({
      clientId: this.principal,
      brokers: [defaults.kafkaBrokers],
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials(this.principal)! },
    });
    this.codec = new EventCodec(defaults.schemaRegistryUrl, topicPrefix, { auth: localRegistryCredentials(this.principal) });
  }

  /** Adds the partner on the stack, behind `topicPrefix`. */
  static async add(name: string, topicPrefix: string): Promise<PartnerClient> {
    await addPartner(loadStackConfig(), name, [topicPrefix]);
    return new PartnerClient(name, topicPrefix);
  }

  /** One of this partner's own topics. */
  topic(type: EventType): string {
    return partnerTopicFor(this.name, type, this.topicPrefix);
  }

  request(userId: string, input: Record<string, unknown> = { text: 'Q3' }): EventOf<'TaskRequested'> {
    const ids = { taskId: randomUUID(), userId, correlationId: randomUUID(), causationId: null };
    return newEvent('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: JSON.stringify(input) }, ids, this.name);
  }

  cancel(taskId: string, userId: string): EventOf<'TaskCancelRequested'> {
    return newEvent('TaskCancelRequested', {}, { taskId, userId, correlationId: randomUUID(), causationId: null }, this.name);
  }

  /** Publishes `event` to `topic` (its own request topic unless told), as this partner; rejects as the broker refuses. */
  async publish(event: EventOf<'TaskRequested'> | EventOf<'TaskCancelRequested'>, topic = this.topic(event.eventType)): Promise<void> {
    await (await this.connected()).send({ topic, acks: -1, messages: [{ key: event.taskId, value: await this.codec.encode(event) }] });
  }

  /** Publishes many requests on its own request topic, as this partner, a few hundred to a send. */
  async publishAll(events: Array<EventOf<'TaskRequested'>>): Promise<void> {
    const producer = await this.connected();
    for (let i = 0; i < events.length; i += 250) {
      const messages = await Promise.all(events.slice(i, i + 250).map(async (event) => ({ key: event.taskId, value: await this.codec.encode(event) })));
      await producer.send({ topic: this.topic('TaskRequested'), acks: -1, messages });
    }
  }

  private async connected(): Promise<Producer> {
    if (!this.producer) {
      this.producer = this.kafka.producer();
      await this.producer.connect();
    }
    return this.producer;
  }

  /** Reads `topics` from their beginning in a group of this partner's own; rejects as the broker refuses. */
  async read(topics: string[]): Promise<TopicReader> {
    const reader = new TopicReader(this.kafka, this.codec, `${this.topicPrefix}${this.principal}-`);
    this.readers.push(reader);
    return reader.start(topics);
  }

  /** Its own outcome topics, read from their beginning. */
  outcomes(): Promise<TopicReader> {
    return this.read((['TaskCompleted', 'TaskFailed', 'TaskRejected', 'TaskCancelRejected'] as const).map((type) => this.topic(type)));
  }

  /** Disconnects, and takes the partner away from the stack again (its credentials and grants). */
  async remove(): Promise<void> {
    await Promise.all(this.readers.map((reader) => reader.stop().catch(() => undefined)));
    await this.producer?.disconnect();
    await removePartner(loadStackConfig(), this.name, [this.topicPrefix]);
  }
}
