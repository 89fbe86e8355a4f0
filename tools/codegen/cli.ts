import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadEnvelope } from '@app/events';
import { readSchemas, renderEventTypes } from './render-event-types';
import { renderAsyncApi } from './render-asyncapi';

const root = path.resolve(__dirname, '..', '..');
const target = path.join(root, 'libs', 'events', 'src', 'generated', 'event-types.ts');
fs.writeFileSync(target, renderEventTypes(readSchemas(path.join(root, 'schemas')), loadEnvelope(path.join(root, 'schemas'))));
process.stdout.write(`wrote ${path.relative(root, target)}\n`);
const asyncApi = path.join(root, 'docs', 'asyncapi.yaml');
fs.writeFileSync(asyncApi, renderAsyncApi(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version));
process.stdout.write(`wrote ${path.relative(root, asyncApi)}\n`);
