import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { eventTypes, topicFor } from '@app/events';
import { externalEvents, serviceEvents } from '@app/catalogue';
import { renderAsyncApi } from './render-asyncapi';

const root = path.resolve(__dirname, '..', '..');
const committed = () => fs.readFileSync(path.join(root, 'docs', 'asyncapi.yaml'), 'utf8');

describe('docs/asyncapi.yaml', () => {
  it('is what `npm run codegen` makes from schemas/ today (run it after changing a schema)', () => {
    const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
    expect(committed()).toBe(renderAsyncApi(version));
  });

  it('has a channel, a message and its senders and receivers for every event, each reference resolving', () => {
    const doc = parse(committed());
    expect(doc.asyncapi).toBe('3.0.0');
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .reduce((node, key) => node?.[key], doc);
    for (const type of eventTypes) {
      expect(doc.channels[type].address).toBe(topicFor(type));
      expect(resolve(doc.channels[type].messages[type].$ref).payload.schema.name).toBe(type);
    }
    const operations = Object.values(doc.operations) as Array<{ action: string; channel: { $ref: string }; tags: Array<{ name: string }> }>;
    for (const operation of operations) expect(resolve(operation.channel.$ref)).toBeDefined();
    const sent = (who: string) =>
      operations
        .filter((o) => o.action === 'send' && o.tags[0].name === who)
        .map((o) => o.channel.$ref.split('/').pop())
        .sort();
    for (const [service, events] of Object.entries(serviceEvents)) expect(sent(service)).toEqual([...events.produces].sort());
    expect(sent('external')).toEqual([...externalEvents.produces].sort());
  });
});
