import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EventType } from './generated/event-types';

export interface AvroField {
  name: string;
  type: unknown;
  default?: unknown;
  doc?: string;
}

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  doc?: string;
  fields: AvroField[];
}

/** An event's schema as its file holds it: its own fields, and envelope fields named again for their doc alone. */
export interface EventSchemaFile extends Omit<AvroRecordSchema, 'fields'> {
  fields: Array<AvroField | { name: string; doc: string }>;
}

/** The envelope: the fields every event carries first (schemas/envelope.json). */
export interface EnvelopeSchema {
  doc: string;
  fields: AvroField[];
}

let cachedDir: string | undefined;

/**
 * The schemas/ folder at the repository root, found by walking up from this file, so the same code
 * works from sources (tests, ts-node) and from the bundled services in dist/. SCHEMAS_DIR overrides.
 */
export function schemasDir(): string {
  if (process.env.SCHEMAS_DIR) return process.env.SCHEMAS_DIR;
  if (cachedDir) return cachedDir;
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'schemas');
    if (fs.existsSync(path.join(candidate, 'TaskRequested.avsc'))) return (cachedDir = candidate);
  }
  throw new Error(`no schemas/ folder found above ${__dirname}; set SCHEMAS_DIR`);
}

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

/**
 * The envelope followed by the event's own fields: one flat record, as the registry holds it (a
 * nested envelope record would change the wire format). An envelope field the event names again
 * keeps its type and place, and takes the event's doc.
 */
export function assembleSchema(own: EventSchemaFile, envelope: EnvelopeSchema): AvroRecordSchema {
  const redeclared = new Map(own.fields.map((field) => [field.name, field]));
  const envelopeNames = new Set(envelope.fields.map((field) => field.name));
  for (const field of own.fields) {
    if (envelopeNames.has(field.name) && Object.keys(field).some((key) => key !== 'name' && key !== 'doc'))
      throw new Error(`${own.name}: the envelope's ${field.name} may be named again for its doc only`);
  }
  const envelopeFields = envelope.fields.map((field) => ({ ...field, ...redeclared.get(field.name) }));
  const ownFields = own.fields.filter((field): field is AvroField => !envelopeNames.has(field.name));
  return { ...own, fields: [...envelopeFields, ...ownFields] };
}

/**
 * `eventType`'s schema from the folder `dir`: assembled with the folder's envelope.json, or whole
 * as a release from before the envelope had its own file holds it.
 */
export function loadSchemaFrom(dir: string, eventType: EventType): AvroRecordSchema {
  const own = readJson<EventSchemaFile>(path.join(dir, `${eventType}.avsc`));
  const envelope = path.join(dir, 'envelope.json');
  return fs.existsSync(envelope) ? assembleSchema(own, readJson<EnvelopeSchema>(envelope)) : (own as AvroRecordSchema);
}

/** `eventType`'s whole schema, as it is registered and as the codec reads and writes it. */
export function loadSchema(eventType: EventType): AvroRecordSchema {
  return loadSchemaFrom(schemasDir(), eventType);
}

/** The envelope's fields, as schemas/envelope.json defines them. */
export function loadEnvelope(dir = schemasDir()): EnvelopeSchema {
  return readJson<EnvelopeSchema>(path.join(dir, 'envelope.json'));
}
