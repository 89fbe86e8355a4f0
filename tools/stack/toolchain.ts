import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StackError } from './processes';

/** Finds a command on PATH; as root on Debian, installs the package that provides it when missing. */
export function requireCommand(command: string, debianPackage: string): string {
  const found = which(command);
  if (found) return found;
  const canInstall = process.getuid?.() === 0 && which('apt-get');
  if (canInstall) {
    process.stdout.write(`${command} is missing: installing Debian package ${debianPackage}\n`);
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage]);
    const installed = which(command);
    if (installed) return installed;
  }
  throw new StackError('toolchain', `${command} is not installed; install the Debian package ${debianPackage}`);
}

/** Like requireCommand, for a Debian package that brings no command (a library, a Python module). */
export function requireDebianPackage(debianPackage: string): void {
  const installed = () => spawnSync('dpkg-query', ['-W', '-f=${Status}', debianPackage], { encoding: 'utf8' }).stdout?.includes('install ok installed');
  if (installed()) return;
  if (process.getuid?.() === 0 && which('apt-get')) {
    process.stdout.write(`Debian package ${debianPackage} is missing: installing it\n`);
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage]);
    if (installed()) return;
  }
  throw new StackError('toolchain', `the Debian package ${debianPackage} is not installed; install it`);
}

function which(command: string): string | undefined {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : undefined;
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/**
 * The registry needs Java 21 or newer; the machine's default Java is 17, with a newer JDK beside it
 * under /usr/lib/jvm. REGISTRY_JAVA_HOME wins when set.
 */
export function findJava(minimumMajor: number): string {
  const candidates = [process.env.REGISTRY_JAVA_HOME, process.env.JAVA_HOME, ...jvmDirs()].filter((dir): dir is string => Boolean(dir));
  const best = candidates
    .map((home) => ({ home, major: javaMajor(home) }))
    .filter((c) => c.major >= minimumMajor)
    .sort((a, b) => b.major - a.major)[0];
  if (!best) {
    throw new StackError(
      'toolchain',
      `no Java ${minimumMajor}+ found (looked at REGISTRY_JAVA_HOME, JAVA_HOME and /usr/lib/jvm); set REGISTRY_JAVA_HOME to a JDK ${minimumMajor}+`,
    );
  }
  return path.join(best.home, 'bin', 'java');
}

function jvmDirs(): string[] {
  const root = '/usr/lib/jvm';
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root).map((name) => path.join(root, name));
}

function javaMajor(home: string): number {
  const release = path.join(home, 'release');
  if (!fs.existsSync(release) || !fs.existsSync(path.join(home, 'bin', 'java'))) return 0;
  const match = fs.readFileSync(release, 'utf8').match(/JAVA_VERSION="(\d+)/);
  return match ? Number(match[1]) : 0;
}
