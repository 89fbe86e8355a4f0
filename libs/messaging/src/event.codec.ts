import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { DomainEvent, EventType, isEventType, loadSchema, subjectFor, topicFor } from '@app/events';
import { isInfrastructureError, PlatformError } from './errors';

/**
 * Confluent-framed Avro for every event: the value is the magic byte, the schema id, then the Avro
 * body, with the schema registered under `<topic>-value`.
 */
export class EventCodec {
  private readonly registry: SchemaRegistry;
  private readonly schemaIds = new Map<EventType, Promise<number>>();

  constructor(
    registryUrl: string,
    readonly topicPrefix = '',
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

  /**
   * Bytes that are not a framed event of ours fail with DECODE_FAILED or UNKNOWN_SCHEMA (the message
   * is at fault); a registry that cannot be reached fails as an infrastructure error (it is not).
   */
  async decode(value: Buffer | null): Promise<DomainEvent> {
    if (!value) throw new PlatformError('DECODE_FAILED', 'message has no value');
    let decoded: DomainEvent;
    try {
      decoded = (await this.registry.decode(value)) as DomainEvent;
    } catch (error) {
      if (isInfrastructureError(error)) throw error;
      const unknownSchema = (error as { status?: number }).status === 404;
      throw new PlatformError(unknownSchema ? 'UNKNOWN_SCHEMA' : 'DECODE_FAILED', (error as Error).message, { cause: error });
    }
    if (!isEventType(decoded.eventType)) throw new PlatformError('DECODE_FAILED', `unknown eventType "${decoded.eventType}"`);
    return { ...decoded };
  }
}
