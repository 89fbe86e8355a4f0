import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createKnex } from '@app/database';
import { stopService } from '../../tools/run/service-process';
import { Platform } from '../support/platform';
import { authAs } from '../support/tokens';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..');

/** The operator's master key rotation, as docs/privacy.md tells it: add a key and make it current, rewrap, retire the old one. */
describe('rotating the master key', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'master-keys-'));
  const key = () => randomBytes(32).toString('base64');
  const [oldKey, newKey] = [key(), key()];
  const masterFile = (name: string, current: string, keys: Record<string, string>) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify({ current, keys }), { mode: 0o600 });
    return file;
  };
  const platform = new Platform({ MASTER_KEYS_FILE: masterFile('before.json', 'mk-1', { 'mk-1': oldKey }) });
  beforeAll(() => platform.start());
  afterAll(async () => {
    await platform.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function restartReaders(file: string): Promise<void> {
    for (const name of ['tasks', 'generation'] as const) {
      await stopService(platform.service(name));
      await platform.startApp(name, undefined, { MASTER_KEYS_FILE: file });
    }
  }

  async function report(taskId: string): Promise<string> {
    return (await fetch(`${platform.url('generation')}/generations/${taskId}/report`, { headers: await authAs('rotating') })).text();
  }

  async function wrappings(service: 'tasks' | 'generation'): Promise<string[]> {
    const db = createKnex(platform.env.databaseUrl(service), 1, { quiet: true });
    try {
      return (await db('user_data_keys').select('wrapped')).map((row: { wrapped: string }) => row.wrapped.split(':')[2]);
    } finally {
      await db.destroy();
    }
  }

  it('keeps every input and report readable, and the old key can retire', async () => {
    // Given a task whose user's data key was wrapped under mk-1
    const first = (await platform.submit('rotating', { text: 'before the rotation' })).body.taskId as string;
    await platform.settled(first);
    expect(await wrappings('generation')).toEqual(['mk-1']);

    // When mk-2 is added and made current, the services restarted, and the keys rewrapped
    const both = masterFile('rotating.json', 'mk-2', { 'mk-1': oldKey, 'mk-2': newKey });
    await restartReaders(both);
    const { stdout } = await run(process.execPath, ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', 'tools/keys/rewrap.cli.ts'], {
      cwd: root,
      env: { ...process.env, ...platform.env.serviceEnv('tasks'), MASTER_KEYS_FILE: both, TS_NODE_TRANSPILE_ONLY: 'true' },
    });
    expect(stdout).toContain('1 data key(s) rewrapped under master key mk-2');
    expect(await wrappings('tasks')).toEqual(['mk-2']);
    // Then generation's copy follows, through the keys' topic
    await waitFor(async () => (await wrappings('generation')).join() === 'mk-2', { what: "generation's copy rewrapped under mk-2" });

    // And with mk-1 retired, the first task's input and report still open, and a new task runs
    await restartReaders(masterFile('after.json', 'mk-2', { 'mk-2': newKey }));
    expect((await platform.task(first)).input).toEqual({ text: 'before the rotation' });
    expect(await report(first)).toContain('before the rotation');
    const second = (await platform.submit('rotating', { text: 'after the rotation' })).body.taskId as string;
    expect(await platform.settled(second)).toMatchObject({ state: 'SUCCESS', input: { text: 'after the rotation' } });
    expect(await report(second)).toContain('after the rotation');
  });
});
