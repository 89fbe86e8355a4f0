import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { DomainEvent, EventType, isEventType, loadSchema, subjectFor, topicFor } from '@app/events';
import { withJitter } from './backoff';
import { withDeadline } from './deadline';
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

  /**
   * Registers the schema once per process (the registry returns the existing id for a known
   * schema). Several services registering one subject at once can collide in the registry, so a
   * failed registration is tried a few times before it counts.
   */
  schemaId(eventType: EventType): Promise<number> {
    let id = this.schemaIds.get(eventType);
    if (!id) {
      id = this.register(eventType);
      id.catch(() => this.schemaIds.delete(eventType));
      this.schemaIds.set(eventType, id);
    }
    return id;
  }

  private async register(eventType: EventType, attempts = 4): Promise<number> {
    const schema = { type: SchemaType.AVRO as const, schema: JSON.stringify(loadSchema(eventType)) };
    const subject = subjectFor(this.topicFor(eventType));
    for (let attempt = 1; ; attempt++) {
      try {
        // The registry client sets no timeout, and a registration has been seen to get no answer.
        return (await withDeadline(this.registry.register(schema, { subject }), 10_000, `registering ${subject}`)).id;
      } catch (error) {
        if (attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, withJitter(200 * attempt, 0.5)));
      }
    }
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
