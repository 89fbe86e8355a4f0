import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as avro from 'avsc';
import { eventTypes } from './generated/event-types';
import { assembleSchema, EventSchemaFile, loadEnvelope, loadSchema, loadSchemaFrom } from './schemas';

/**
 * The schemas as the registry holds them: the last commit whose schemas/ were registered. A schema
 * changed since is a new version in the registry: move this to the commit that changes it, on purpose.
 */
const registeredAt = 'd5a067e4fe1adcd70c6d5e3f618b4aa0df3e1019';

/** schemas/ as they were at `commit`, in a folder of their own. */
function schemasAt(commit: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-'));
  const root = path.resolve(__dirname, '../../..');
  const archive = execFileSync('git', ['archive', '--format=tar', commit, 'schemas'], { cwd: root, maxBuffer: 16 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return path.join(dir, 'schemas');
}

describe('an event schema assembled from the envelope and its own fields', () => {
  const registered = schemasAt(registeredAt);
  afterAll(() => fs.rmSync(path.dirname(registered), { recursive: true, force: true }));

  // An event added since has no version registered yet: its first is new, on purpose.
  const registeredTypes = eventTypes.filter((type) => fs.existsSync(path.join(registered, `${type}.avsc`)));

  it.each(registeredTypes)('%s is what the registry holds: the same bytes sent, the same canonical form', (type) => {
    const before = loadSchemaFrom(registered, type);
    const now = loadSchema(type);
    expect(JSON.stringify(now)).toBe(JSON.stringify(before));
    expect(
      avro.Type.forSchema(now as avro.Schema)
        .fingerprint('sha256')
        .toString('hex'),
    ).toBe(
      avro.Type.forSchema(before as avro.Schema)
        .fingerprint('sha256')
        .toString('hex'),
    );
  });

  it('is one flat record: the envelope first, in its order, then the event’s own fields', () => {
    const envelope = loadEnvelope();
    for (const type of eventTypes) {
      const fields = loadSchema(type).fields;
      expect(fields.slice(0, envelope.fields.length).map((f) => [f.name, f.type])).toEqual(envelope.fields.map((f) => [f.name, f.type]));
      expect(fields.every((f) => f.type !== undefined)).toBe(true);
    }
  });

  it('lets an event give an envelope field its own doc, but not its own type', () => {
    const envelope = { doc: '', fields: [{ name: 'taskId', type: 'string', doc: 'the task' }] };
    const own: EventSchemaFile = {
      type: 'record',
      name: 'UserThing',
      fields: [
        { name: 'taskId', doc: 'the thing' },
        { name: 'size', type: 'int' },
      ],
    };
    expect(assembleSchema(own, envelope).fields).toEqual([
      { name: 'taskId', type: 'string', doc: 'the thing' },
      { name: 'size', type: 'int' },
    ]);
    const retyped: EventSchemaFile = { ...own, fields: [{ name: 'taskId', type: 'long', doc: 'a number' }] };
    expect(() => assembleSchema(retyped, envelope)).toThrow("UserThing: the envelope's taskId may be named again for its doc only");
  });
});
