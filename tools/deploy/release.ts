import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ServiceName } from '@app/config';
import type { AppName } from '../run/service-process';

const rootDir = path.resolve(__dirname, '..', '..');

/** A release checked out beside the head and built: where its services' main.js files are. */
export interface Release {
  commit: string;
  dir: string;
}

/** The commit checked out here. */
export function headCommit(): string {
  return git(['rev-parse', 'HEAD']);
}

/**
 * A full commit id, and nothing else: it becomes a folder name and an argument of git, where a value
 * such as `--upload-pack=…` would be an option and `../x` a path elsewhere.
 */
export function isCommitId(value: string): boolean {
  return /^[0-9a-f]{40}$/.test(value);
}

/** The commit ops/previous-release names (comments and blank lines aside). */
export function previousReleaseCommit(root = rootDir): string {
  const lines = fs
    .readFileSync(path.join(root, 'ops', 'previous-release'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  if (lines.length !== 1 || !isCommitId(lines[0])) throw new Error('ops/previous-release must name one commit (40 hex digits)');
  return lines[0];
}

const git = (args: string[], cwd = rootDir) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function hasCommit(commit: string): boolean {
  try {
    git(['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The previous release as a git worktree outside the repository (jest, eslint and the haste map must
 * not see a second copy of the sources), its services built with its own sources and schemas. Built
 * once per commit and kept: a second call finds the marker and returns at once. Its node_modules is
 * the head's when both lock files agree, and its own `npm ci` otherwise.
 */
export function prepareRelease(commit = previousReleaseCommit(), log: (line: string) => void = () => undefined): Release {
  if (!isCommitId(commit)) throw new Error(`"${commit}" is not a commit id (40 hex digits)`);
  const dir = path.join(os.tmpdir(), 'task-platform-releases', commit);
  const marker = path.join(dir, '.release-built');
  if (fs.existsSync(marker)) return { commit, dir };
  if (!hasCommit(commit)) {
    log(`fetching ${commit.slice(0, 10)}: a shallow clone lacks it`);
    try {
      git(['fetch', '--quiet', 'origin', commit]);
    } catch {
      // said below, with what to do
    }
    if (!hasCommit(commit)) throw new Error(`commit ${commit} (ops/previous-release) is not in this clone: fetch the history (git fetch --unshallow)`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  git(['worktree', 'prune']);
  log(`checking out ${commit.slice(0, 10)} in ${dir}`);
  git(['worktree', 'add', '--detach', '--force', dir, commit]);
  const sameLock = git(['diff', commit, '--', 'package-lock.json']) === '';
  if (sameLock) fs.symlinkSync(path.join(rootDir, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  else execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
  for (const app of releasedApps) {
    log(`building ${app} at ${commit.slice(0, 10)}`);
    execFileSync(process.execPath, [path.join(dir, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build', app], { cwd: dir, stdio: 'ignore' });
  }
  fs.writeFileSync(marker, `${new Date().toISOString()}\n`);
  return { commit, dir };
}

/** What a deploy replaces: the four services (the model simulator and the console are the head's throughout). */
export const releasedApps: AppName[] = ['tasks', 'quota', 'generation', 'notification'];

/** A release's built service. */
export function releaseEntry(release: Release, app: AppName): string {
  return path.join(release.dir, 'dist', 'apps', app, 'main.js');
}

/**
 * What a release's process needs beside its own variables: the head's local stack (its keys and
 * credentials; a worktree has no .stack of its own, and finds its root by walking up from its dist).
 */
export function releaseEnv(): NodeJS.ProcessEnv {
  return { STACK_DIR: process.env.STACK_DIR || path.join(rootDir, '.stack') };
}

/** A release's own `main.js migrate latest` on a service's database, as its instances run it at boot. */
export function migrateWithRelease(release: Release, service: ServiceName, databaseUrl: string): void {
  const run = spawnSync(process.execPath, [releaseEntry(release, service), 'migrate', 'latest'], {
    cwd: release.dir,
    encoding: 'utf8',
    env: { ...process.env, ...releaseEnv(), OTEL_SDK_DISABLED: 'true', [`${service.toUpperCase()}_DATABASE_URL`]: databaseUrl },
  });
  if (run.status !== 0) throw new Error(`${service} at ${release.commit.slice(0, 10)} did not migrate (exit ${run.status}):\n${run.stdout}${run.stderr}`);
}
