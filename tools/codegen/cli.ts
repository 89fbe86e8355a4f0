import * as fs from 'node:fs';
import * as path from 'node:path';
import { EventType, loadEnvelope } from '@app/events';
import { readSchemas, renderEventTypes } from './render-event-types';
import { renderAsyncApi } from './render-asyncapi';

const root = path.resolve(__dirname, '..', '..');
const target = path.join(root, 'libs', 'events', 'src', 'generated', 'event-types.ts');
const schemas = readSchemas(path.join(root, 'schemas'));
fs.writeFileSync(target, renderEventTypes(schemas, loadEnvelope(path.join(root, 'schemas'))));
process.stdout.write(`wrote ${path.relative(root, target)}\n`);
const asyncApi = path.join(root, 'docs', 'asyncapi.yaml');
// The types as schemas/ has them now, not as this process compiled them: a new event's channel is
// written by the same run that writes its type.
const types = schemas.map((schema) => schema.name as EventType);
fs.writeFileSync(asyncApi, renderAsyncApi(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version, types));
process.stdout.write(`wrote ${path.relative(root, asyncApi)}\n`);
