import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [file] : [];
  });
}

const services = ['TASKS', 'QUOTA', 'GENERATION', 'NOTIFICATION'];

/** Every variable the apps and libraries read: `env.NAME`, and names handed to the config helpers. */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  for (const file of [...sources(path.join(root, 'apps')), ...sources(path.join(root, 'libs')), path.join(root, 'tools', 'stack', 'stack.config.ts')]) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
    // Names made from a service's name: `${upper}_PORT`, `${service.toUpperCase()}_URL`…
    for (const m of text.matchAll(/`\$\{[\w.()]+\}(_[A-Z][A-Z0-9_]+)`/g)) for (const service of services) names.add(`${service}${m[1]}`);
    if (/config\.ts$/.test(file)) {
      for (const m of text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) if (!/(_CONFIG|_VERIFIER|_POLICY)$/.test(m[1])) names.add(m[1]);
    }
  }
  return names;
}

/** The variables docs/configuration.md documents (first column of its tables, in backticks). */
function variablesDocumented(): Set<string> {
  const table = fs.readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');
  const names = new Set<string>();
  for (const row of table.split('\n').filter((line) => line.startsWith('| `'))) {
    for (const m of row.split(' | ')[0].matchAll(/`([A-Z][A-Z0-9_<>*]+)`/g)) names.add(m[1]);
  }
  return names;
}

/** Read by the code, but documented as a family: `<SERVICE>_DATABASE_URL`, OpenTelemetry's `OTEL_*`. */
const families = [/^(TASKS|QUOTA|GENERATION|NOTIFICATION)_DATABASE_URL$/, /^OTEL_/];

describe('the Configuration page (docs/configuration.md)', () => {
  it('documents every variable the services read', () => {
    const documented = variablesDocumented();
    const missing = [...variablesRead()].filter((name) => !documented.has(name) && !families.some((family) => family.test(name)));
    expect(missing.sort()).toEqual([]);
  });

  it('documents no variable that nothing reads', () => {
    const read = variablesRead();
    const stale = [...variablesDocumented()].filter((name) => !read.has(name) && !/[<*]/.test(name) && !name.startsWith('OTEL_'));
    expect(stale.sort()).toEqual([]);
  });
});
