import * as fs from 'node:fs';
import * as path from 'node:path';
import { schemasDir } from '@app/events';
import { readSchemas, renderEventTypes } from './render-event-types';

describe('the generated event types', () => {
  it('match schemas/*.avsc exactly (run `npm run codegen` after changing a schema)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '../../libs/events/src/generated/event-types.ts'), 'utf8');
    expect(committed).toBe(renderEventTypes(readSchemas(schemasDir())));
  });

  it('render nullable fields as unions with null and numbers for int and long', () => {
    const envelope: Array<{ name: string; type: unknown }> = [...Array(8)].map((_, i) => ({ name: `e${i}`, type: 'string' }));
    const fields = [
      ...envelope,
      { name: 'count', type: 'int' },
      { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
      { name: 'note', type: ['null', 'string'] },
    ];
    const rendered = renderEventTypes([{ name: 'Sample', fields }]);
    expect(rendered).toContain("export interface Sample extends Envelope<'Sample'> {\n  count: number;\n  at: number;\n  note: null | string;\n}");
  });
});
