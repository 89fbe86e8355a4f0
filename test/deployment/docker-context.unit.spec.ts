import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import dockerignore from '@balena/dockerignore';

const rootDir = path.resolve(__dirname, '../..');

/** Every file under `dir`, relative to it, as a build walks a context. */
function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

/** What `docker build` would send from `contextDir`, as Docker's own rules select it (.dockerignore). */
function buildContext(contextDir: string): string[] {
  const rules = dockerignore({ ignorecase: false }).add(fs.readFileSync(path.join(contextDir, '.dockerignore'), 'utf8'));
  return rules.filter(filesUnder(contextDir));
}

/**
 * docker/Dockerfile cannot be built here (no Docker engine): the context is made as a checkout looks
 * after `npm run stack:up` and a test run, and the ignore file is applied to it as a build would.
 */
describe('the docker build context', () => {
  let checkout: string;
  const leftByRuns = [
    '.stack/auth/kafka-admin.password',
    '.stack/auth/token-signing.key',
    '.stack/auth/webhook-secret.key',
    '.stack/data/kafka/meta.properties',
    '.data/reports/a.txt',
    'chaos/runs/1/evidence.json',
    'node_modules/kafkajs/package.json',
    'apps/tasks/node_modules/x/index.js',
    'dist/apps/tasks/main.js',
    'test-results/junit.xml',
    'coverage/lcov.info',
    '.git/config',
    'tools/stack/target/classes/x',
    'npm-debug.log',
    '.env',
  ];

  beforeAll(() => {
    // Given a checkout's tracked files, with what a local stack, a test run and git leave beside them
    checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-context-'));
    const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: rootDir, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
    for (const file of tracked.filter((f) => fs.existsSync(path.join(rootDir, f)))) {
      fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
      fs.copyFileSync(path.join(rootDir, file), path.join(checkout, file));
    }
    for (const file of leftByRuns) {
      fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
      fs.writeFileSync(path.join(checkout, file), 'secret or local state\n');
    }
  });

  afterAll(() => fs.rmSync(checkout, { recursive: true, force: true }));

  it('sends no secret, stack data, dependency folder, build output, test output or git history', () => {
    // When the context a build would send is selected
    const sent = buildContext(checkout);
    // Then nothing a run left is in it
    expect(sent.filter((file) => leftByRuns.includes(file))).toEqual([]);
    expect(sent.filter((file) => /(^|\/)(\.stack|\.data|node_modules|dist|\.git)\/|^(chaos|test-results|coverage)\//.test(file))).toEqual([]);
  });

  it('sends what the image builds from: the manifests, the sources, the schemas and the tools', () => {
    const sent = new Set(buildContext(checkout));
    const needed = filesUnder(checkout).filter(
      (file) => /^(package(-lock)?\.json|tsconfig\.json|nest-cli\.json|(apps|libs|schemas|tools)\/)/.test(file) && !leftByRuns.includes(file),
    );
    expect(needed.length).toBeGreaterThan(200);
    expect(needed.filter((file) => !sent.has(file))).toEqual([]);
  });
});
