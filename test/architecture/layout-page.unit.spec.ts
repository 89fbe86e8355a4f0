import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** docs/layout.md names every app, library and tool folder, and nothing that is gone. */
describe('the layout page', () => {
  const layout = fs.readFileSync(path.join(root, 'docs', 'layout.md'), 'utf8');

  it.each(['apps', 'libs', 'tools'])('names every folder of %s/', (parent) => {
    const folders = fs
      .readdirSync(path.join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
    const unnamed = folders.filter((folder) => !new RegExp(`(^|[\\s,])${folder.replace('/', '\\/')}([\\s,/]|$)`, 'm').test(layout));
    // apps/<service> names the four services at once.
    const services = ['apps/tasks', 'apps/quota', 'apps/generation', 'apps/notification'];
    expect(unnamed.filter((folder) => !services.includes(folder))).toEqual([]);
  });

  it('names no folder that does not exist', () => {
    const named = [...layout.matchAll(/(?:^|[\s,])((?:apps|libs|tools|ops|docs|test|bench|docker|schemas|examples)\/[a-z.-]*)/gm)].map((m) =>
      m[1].replace(/\/$/, ''),
    );
    const missing = named.filter((folder) => !folder.includes('<') && !fs.existsSync(path.join(root, folder)));
    expect(missing).toEqual([]);
  });
});
