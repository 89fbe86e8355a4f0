import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadEnvelope, schemasDir } from '@app/events';
import { readSchemas, renderEventTypes } from './render-event-types';

describe('the generated event types', () => {
  it('match schemas/*.avsc exactly (run `npm run codegen` after changing a schema)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '../../libs/events/src/generated/event-types.ts'), 'utf8');
    expect(committed).toBe(renderEventTypes(readSchemas(schemasDir()), loadEnvelope()));
  });

  it('render nullable fields as unions with null and numbers for int and long, the envelope apart', () => {
    const envelope = {
      doc: 'Every event’s.',
      fields: [
        { name: 'eventType', type: 'string' },
        { name: 'taskId', type: 'string' },
      ],
    };
    const fields = [
      { name: 'taskId', doc: 'What this event is about.' },
      { name: 'count', type: 'int' },
      { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
      { name: 'note', type: ['null', 'string'] },
    ];
    const rendered = renderEventTypes([{ type: 'record', name: 'Sample', fields }], envelope);
    expect(rendered).toContain('export interface Envelope<T extends string = string> {\n  eventType: T;\n  taskId: string;\n}');
    expect(rendered).toContain("export interface Sample extends Envelope<'Sample'> {\n  count: number;\n  at: number;\n  note: null | string;\n}");
  });
});
