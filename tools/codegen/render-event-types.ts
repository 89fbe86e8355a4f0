import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EnvelopeSchema, EventSchemaFile } from '@app/events';

function tsType(avro: unknown): string {
  if (Array.isArray(avro)) return avro.map(tsType).join(' | ');
  if (typeof avro === 'object' && avro !== null) return tsType((avro as { type: unknown }).type);
  switch (avro) {
    case 'null':
      return 'null';
    case 'string':
      return 'string';
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      throw new Error(`no TypeScript type for Avro type ${JSON.stringify(avro)}`);
  }
}

export function readSchemas(schemasDir: string): EventSchemaFile[] {
  return fs
    .readdirSync(schemasDir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(schemasDir, f), 'utf8')) as EventSchemaFile);
}

const fieldLines = (field: { name: string; doc?: string }, type: string) => [...(field.doc ? [`  /** ${field.doc} */`] : []), `  ${field.name}: ${type};`];

/**
 * The TypeScript types of the envelope and of every event, derived from schemas/ so that the two
 * cannot drift. Each event's interface holds its own fields; an envelope field it names again for
 * its doc is the envelope's.
 */
export function renderEventTypes(schemas: EventSchemaFile[], envelope: EnvelopeSchema): string {
  const names = schemas.map((s) => s.name);
  const envelopeNames = new Set(envelope.fields.map((field) => field.name));
  const lines = [
    '// Generated from schemas/ by `npm run codegen`; do not edit. A unit test fails when it drifts.',
    '',
    `/** ${envelope.doc} \`T\` is the event's type. */`,
    'export interface Envelope<T extends string = string> {',
    ...envelope.fields.flatMap((field) => fieldLines(field, field.name === 'eventType' ? 'T' : tsType(field.type))),
    '}',
    '',
    `export const envelopeFields = [${envelope.fields.map((field) => `'${field.name}'`).join(', ')}] as const;`,
    '',
    `export const eventTypes = [${names.map((n) => `'${n}'`).join(', ')}] as const;`,
    'export type EventType = (typeof eventTypes)[number];',
  ];
  for (const schema of schemas) {
    lines.push('', ...(schema.doc ? [`/** ${schema.doc} */`] : []), `export interface ${schema.name} extends Envelope<'${schema.name}'> {`);
    for (const field of schema.fields) if (!envelopeNames.has(field.name) && 'type' in field) lines.push(...fieldLines(field, tsType(field.type)));
    lines.push('}');
  }
  lines.push('', `export type DomainEvent =\n${names.map((n) => `  | ${n}`).join('\n')};`, '');
  return lines.join('\n');
}
