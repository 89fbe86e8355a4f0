import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { DomainEvent, EventType, isEventType, loadSchema, subjectFor, topicFor } from '@app/events';

/**
 * Confluent-framed Avro for every event: the value is the magic byte, the schema id, then the Avro
 * body, with the schema registered under `<topic>-value`.
 */
export class EventCodec {
  private readonly registry: SchemaRegistry;
  private readonly schemaIds = new Map<EventType, Promise<number>>();

  constructor(
    registryUrl: string,
    private readonly topicPrefix = '',
  ) {
    this.registry = new SchemaRegistry({ host: registryUrl });
  }

  topicFor(eventType: EventType): string {
    return topicFor(eventType, this.topicPrefix);
  }

  /** Registers the schema once per process (the registry returns the existing id for a known schema). */
  schemaId(eventType: EventType): Promise<number> {
    let id = this.schemaIds.get(eventType);
    if (!id) {
      id = this.registry
        .register(
          { type: SchemaType.AVRO, schema: JSON.stringify(loadSchema(eventType)) },
          { subject: subjectFor(this.topicFor(eventType)) },
        )
        .then((result) => result.id);
      id.catch(() => this.schemaIds.delete(eventType));
      this.schemaIds.set(eventType, id);
    }
    return id;
  }

  async encode(event: DomainEvent): Promise<Buffer> {
    return this.registry.encode(await this.schemaId(event.eventType), event);
  }

  async decode(value: Buffer): Promise<DomainEvent> {
    const decoded = (await this.registry.decode(value)) as DomainEvent;
    if (!isEventType(decoded.eventType)) throw new Error(`unknown eventType "${decoded.eventType}"`);
    return { ...decoded };
  }
}
