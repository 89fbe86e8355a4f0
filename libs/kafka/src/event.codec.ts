import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import * as avro from 'avsc';
import TimeoutMiddleware from 'mappersmith/middleware/timeout';
import { DomainEvent, EventType, eventTypes, isEventType, loadSchema, subjectFor, topicFor } from '@app/events';
import { partnerTopicOf } from '@app/catalogue';
import { retry, withDeadline, withJitter } from '@app/timing';
import { isInfrastructureError, PlatformError } from '@app/failures';
import { basicAuthorization, registryAuthFromEnv, RegistryCredentials } from './security/registry-credentials';

/**
 * Confluent-framed Avro for every event: the value is the magic byte, the schema id, then the Avro
 * body, with the schema registered under `<topic>-value`.
 */
export interface CodecOptions {
  /** How long one decode may wait for the registry to answer (a schema not yet cached). */
  decodeDeadlineMs?: number;
  /**
   * How long one HTTP request to the registry may take. Without it a request the registry never
   * answers stays the client's pending lookup of that schema id forever, and no later decode of
   * that id could succeed even after the registry recovers.
   */
  requestTimeoutMs?: number;
  /** Basic credentials for the registry; SCHEMA_REGISTRY_USERNAME and _PASSWORD(_FILE) when not given. */
  auth?: RegistryCredentials;
}

export class EventCodec {
  private readonly registry: SchemaRegistry;
  private readonly schemaIds = new Map<EventType, Promise<number>>();
  private readonly readers = new Map<EventType, avro.Type>();
  private readonly resolvers = new Map<string, avro.Type | avro.Resolver>();
  private readonly decodeDeadlineMs: number;
  private readonly auth: RegistryCredentials | undefined;

  constructor(
    private readonly registryUrl: string,
    readonly topicPrefix = '',
    options: CodecOptions = {},
  ) {
    const auth = (this.auth = 'auth' in options ? options.auth : registryAuthFromEnv());
    this.registry = new SchemaRegistry({
      host: registryUrl,
      middlewares: [TimeoutMiddleware(options.requestTimeoutMs ?? 5_000)],
      ...(auth ? { auth } : {}),
    });
    this.decodeDeadlineMs = options.decodeDeadlineMs ?? 10_000;
  }

  topicFor(eventType: EventType): string {
    return topicFor(eventType, this.topicPrefix);
  }

  /** The event type a topic carries (a partner's topics included), or undefined for a topic that is not an event topic of ours. */
  typeOfTopic(topic: string): EventType | undefined {
    return eventTypes.find((type) => this.topicFor(type) === topic) ?? partnerTopicOf(topic, this.topicPrefix)?.eventType;
  }

  /**
   * The id under which provisioning registered our schema of `eventType`, looked up once per process.
   * A service never registers: it may only read the registry, so that nobody but provisioning can
   * change what an event means. A schema not registered yet fails with SCHEMA_NOT_REGISTERED.
   */
  schemaId(eventType: EventType): Promise<number> {
    let id = this.schemaIds.get(eventType);
    if (!id) {
      // A failed look-up goes to whoever asked and is not kept: the next asks again.
      id = this.lookUp(eventType).catch((error: unknown) => {
        this.schemaIds.delete(eventType);
        throw error;
      });
      this.schemaIds.set(eventType, id);
    }
    return id;
  }

  private async lookUp(eventType: EventType): Promise<number> {
    const subject = subjectFor(this.topicFor(eventType));
    let id: number;
    try {
      id = await withDeadline(this.registry.getRegistryIdBySchema(subject, this.schemaOf(eventType)), 10_000, `looking up ${subject}`);
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      throw new PlatformError('SCHEMA_NOT_REGISTERED', `${eventType}'s schema is not registered under ${subject}: provisioning registers it`, { cause: error });
    }
    // The schema by its id, now: encoding needs it, and must not wait on the registry later (a
    // registration used to leave it in the client's cache; a lookup does not).
    await withDeadline(this.registry.getSchema(id), 10_000, `fetching schema ${id}`);
    return id;
  }

  /**
   * Provisioning's part (a credential that may write): registers our schema of each type under its
   * subject and sets the subject's rule to BACKWARD; a schema already registered keeps its id. Two
   * idempotent requests, not the registry client's register: that one asks the subject's rule first
   * and refuses for good once an interrupted first try has left the subject without one (Apicurio
   * then answers NONE), which failed a clean-clone CI run. Several provisioners at once can collide
   * in the registry, so a failed registration is tried a few times before it counts.
   */
  async register(eventType: EventType, attempts = 4): Promise<number> {
    const subject = subjectFor(this.topicFor(eventType));
    return retry(
      async () => {
        const { id } = (await this.write('POST', `subjects/${subject}/versions`, { schema: this.schemaOf(eventType).schema })) as { id: number };
        await this.write('PUT', `config/${subject}`, { compatibility: 'BACKWARD' });
        return id;
      },
      { attempts, delayMs: (attempt) => withJitter(200 * attempt, 0.5) },
    );
  }

  /** One write to the registry, with a deadline (a registration has been seen to get no answer). */
  private async write(method: 'POST' | 'PUT', path: string, body: object): Promise<unknown> {
    const response = await fetch(`${this.registryUrl}/${path}`, {
      method,
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', ...basicAuthorization(this.auth) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`registry ${method} /${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  }

  private schemaOf(eventType: EventType) {
    return { type: SchemaType.AVRO as const, schema: JSON.stringify(loadSchema(eventType)) };
  }

  async encode(event: DomainEvent): Promise<Buffer> {
    return this.registry.encode(await this.schemaId(event.eventType), event);
  }

  /**
   * Bytes that are not a framed event of ours fail with DECODE_FAILED or UNKNOWN_SCHEMA, and an event
   * of another type than `expected` (the one its topic carries) with TOPIC_MISMATCH: the message is at
   * fault. A registry that cannot be reached, answers 5xx or does not answer within the deadline fails
   * as an infrastructure error: it is not. The value is read with our own schema as the reader, so a
   * field that the writer's older schema lacks arrives with its default.
   */
  async decode(value: Buffer | null, expected?: EventType): Promise<DomainEvent> {
    if (!value) throw new PlatformError('DECODE_FAILED', 'message has no value');
    if (value.length < 5 || value[0] !== 0) throw new PlatformError('DECODE_FAILED', 'value is not Confluent-framed (magic byte 0, schema id)');
    const schemaId = value.readInt32BE(1);
    let writer: avro.Type;
    try {
      writer = (await withDeadline(this.registry.getSchema(schemaId), this.decodeDeadlineMs, `fetching schema ${schemaId}`)) as unknown as avro.Type;
    } catch (error) {
      if (isInfrastructureError(error)) throw error;
      const unknownSchema = (error as { status?: number }).status === 404;
      throw new PlatformError(unknownSchema ? 'UNKNOWN_SCHEMA' : 'DECODE_FAILED', (error as Error).message, { cause: error });
    }
    const type = expected ?? this.typeNamed(writer);
    let decoded: DomainEvent;
    try {
      decoded = this.readerFor(schemaId, writer, type).fromBuffer(value.subarray(5)) as DomainEvent;
    } catch (error) {
      if (error instanceof PlatformError) throw error;
      throw new PlatformError('DECODE_FAILED', (error as Error).message, { cause: error });
    }
    if (!isEventType(decoded.eventType)) throw new PlatformError('DECODE_FAILED', `unknown eventType "${decoded.eventType}"`);
    if (decoded.eventType !== type) throw new PlatformError('TOPIC_MISMATCH', `a ${decoded.eventType} on the topic of ${type}`);
    return { ...decoded };
  }

  /** The writer's own record name, when the caller cannot say which type to expect. */
  private typeNamed(writer: avro.Type): EventType {
    const name = (writer.name ?? '').split('.').pop() ?? '';
    if (!isEventType(name)) throw new PlatformError('DECODE_FAILED', `schema "${writer.name}" is not an event of ours`);
    return name;
  }

  /** Reading resolves the writer's schema into ours; both the reader and each resolver are built once. */
  private readerFor(schemaId: number, writer: avro.Type, type: EventType): { fromBuffer(buffer: Buffer): unknown } {
    const key = `${schemaId}:${type}`;
    let reader = this.readers.get(type);
    if (!reader) this.readers.set(type, (reader = avro.Type.forSchema(loadSchema(type) as avro.Schema)));
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      const writerName = (writer.name ?? '').split('.').pop();
      if (writerName !== type) throw new PlatformError('TOPIC_MISMATCH', `a value written as ${writerName} on the topic of ${type}`);
      try {
        resolver = reader.equals(writer) ? reader : reader.createResolver(writer);
      } catch (error) {
        throw new PlatformError('DECODE_FAILED', `schema ${schemaId} cannot be read as ${type}: ${(error as Error).message}`, { cause: error });
      }
      this.resolvers.set(key, resolver);
    }
    const chosen = resolver;
    return { fromBuffer: (buffer) => (chosen === reader ? reader.fromBuffer(buffer) : reader!.fromBuffer(buffer, chosen as avro.Resolver)) };
  }
}
