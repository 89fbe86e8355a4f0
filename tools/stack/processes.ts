import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process the stack started and tracks by pid file: only these are ever stopped. */
export interface ManagedProcess {
  name: string;
  pidFile: string;
  logFile: string;
}

export function managed(runDir: string, logsDir: string, name: string): ManagedProcess {
  return { name, pidFile: path.join(runDir, `${name}.pid`), logFile: path.join(logsDir, `${name}.log`) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function runningPid(proc: ManagedProcess): number | undefined {
  if (!fs.existsSync(proc.pidFile)) return undefined;
  const pid = Number(fs.readFileSync(proc.pidFile, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return pid;
  fs.rmSync(proc.pidFile, { force: true });
  return undefined;
}

export function startDetached(proc: ManagedProcess, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): number {
  fs.mkdirSync(path.dirname(proc.pidFile), { recursive: true });
  fs.mkdirSync(path.dirname(proc.logFile), { recursive: true });
  const log = fs.openSync(proc.logFile, 'a');
  fs.writeSync(log, `\n--- ${new Date().toISOString()} starting ${proc.name}: ${command} ${args.join(' ')}\n`);
  // Detached: its own process group, so it outlives this command and can be stopped as a group.
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${proc.name} (${command})`);
  child.unref();
  fs.writeFileSync(proc.pidFile, String(child.pid));
  return child.pid;
}

/** Stops the process group; SIGTERM first, SIGKILL if it does not exit in time. */
export async function stopManaged(proc: ManagedProcess, graceMs = 15_000): Promise<boolean> {
  const pid = runningPid(proc);
  if (pid === undefined) return false;
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) signalGroup(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(50);
  fs.rmSync(proc.pidFile, { force: true });
  return true;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export function portIsOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export { sleep };

export function logTail(file: string, lines = 30): string {
  if (!fs.existsSync(file)) return '(no log written)';
  return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Polls `probe` until it returns true; fails early if the process dies, with its log tail. */
export async function waitUntilReady(proc: ManagedProcess, pid: number, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    if (!isAlive(pid)) {
      fs.rmSync(proc.pidFile, { force: true });
      throw new StackError(proc.name, `${proc.name} exited during start-up`, proc.logFile);
    }
    await sleep(250);
  }
  throw new StackError(proc.name, `${proc.name} did not answer within ${timeoutMs / 1000}s`, proc.logFile);
}

export class StackError extends Error {
  constructor(
    readonly part: string,
    message: string,
    readonly logFile?: string,
  ) {
    super(message);
    this.name = 'StackError';
  }
}
