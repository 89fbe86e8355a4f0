import * as fs from 'node:fs';
import * as path from 'node:path';

interface AvroField {
  name: string;
  type: unknown;
  doc?: string;
}
interface AvroRecord {
  name: string;
  doc?: string;
  fields: AvroField[];
}

const envelopeFieldCount = 8;

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

export function readSchemas(schemasDir: string): AvroRecord[] {
  return fs
    .readdirSync(schemasDir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(schemasDir, f), 'utf8')) as AvroRecord);
}

/** The TypeScript types of every event, derived from schemas/*.avsc so that the two cannot drift. */
export function renderEventTypes(schemas: AvroRecord[]): string {
  const names = schemas.map((s) => s.name);
  const lines = [
    '// Generated from schemas/*.avsc by `npm run codegen`; do not edit. A unit test fails when it drifts.',
    "import type { Envelope } from '../envelope';",
    '',
    `export const eventTypes = [${names.map((n) => `'${n}'`).join(', ')}] as const;`,
    'export type EventType = (typeof eventTypes)[number];',
  ];
  for (const schema of schemas) {
    lines.push('', ...(schema.doc ? [`/** ${schema.doc} */`] : []), `export interface ${schema.name} extends Envelope<'${schema.name}'> {`);
    for (const field of schema.fields.slice(envelopeFieldCount)) {
      if (field.doc) lines.push(`  /** ${field.doc} */`);
      lines.push(`  ${field.name}: ${tsType(field.type)};`);
    }
    lines.push('}');
  }
  lines.push('', `export type DomainEvent =\n${names.map((n) => `  | ${n}`).join('\n')};`, '');
  return lines.join('\n');
}
