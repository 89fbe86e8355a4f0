import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EventType } from './generated/event-types';

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  fields: Array<{ name: string; type: unknown; default?: unknown; doc?: string }>;
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

export function loadSchema(eventType: EventType): AvroRecordSchema {
  const file = path.join(schemasDir(), `${eventType}.avsc`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as AvroRecordSchema;
}
