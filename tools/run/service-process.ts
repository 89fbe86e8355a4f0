import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const rootDir = path.resolve(__dirname, '..', '..');

/** The four services and the model simulator, as built into dist/apps/<name>/main.js. */
export type AppName = 'tasks' | 'quota' | 'generation' | 'notification' | 'console' | 'model-simulator';

/** A built app running as its own process. */
export interface RunningService {
  name: AppName;
  port: number;
  child: ChildProcess;
  /** Everything it printed so far, for failure messages. */
  output: () => string;
}

/** An app's built entry: the head's, or a release's checked out elsewhere (tools/deploy). */
export function serviceEntry(name: AppName, root = rootDir): string {
  return path.join(root, 'dist', 'apps', name, 'main.js');
}

/** `model-simulator` → `MODEL_SIMULATOR_PORT`. */
export function portVariable(name: AppName): string {
  return `${name.toUpperCase().replace(/-/g, '_')}_PORT`;
}

/**
 * How every service's heap is kept small (docker/Dockerfile runs them with the same). Left to itself,
 * V8 lets a service's heap grow to some four times what it holds under load (a 16 MB pair of young
 * semi-spaces, then an old space grown by up to 4× its live set before it collects): ~35 MB live made
 * 150–230 MB resident. Young semi-spaces of 4 MB and an old space grown by 30 % keep each service
 * at 113–131 MB resident under 1,000 tasks (see bench/README.md for what it costs).
 */
export const serviceNodeFlags = ['--max-semi-space-size=4', '--heap-growing-percent=30'];

/** Every app this process started and has not seen exit: what stopLeftoverServices stops. */
const running = new Set<RunningService>();

/**
 * `env.NODE_FLAGS` (space-separated) go to node itself after serviceNodeFlags: flags NODE_OPTIONS
 * refuses, such as --cpu-prof. `root` is where the built app is: the head, or a release beside it.
 */
export function startService(
  name: AppName,
  port: number,
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void = () => undefined,
  root = rootDir,
): RunningService {
  const nodeFlags = (env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...serviceNodeFlags, ...nodeFlags, serviceEntry(name, root)], {
    cwd: root,
    env: { ...process.env, ...env, [portVariable(name)]: String(port), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      if (lines.length > 20_000) lines.shift();
      onLine(line);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const service: RunningService = { name, port, child, output: () => lines.join('\n') };
  running.add(service);
  child.once('exit', () => running.delete(service));
  return service;
}

export async function healthStatus(port: number): Promise<number | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) });
    return response.status;
  } catch {
    return undefined;
  }
}

/**
 * Resolves when /health answers `expected`; rejects with the service's output if it exits or times out.
 * The limit is generous: on a busy two-core machine a boot has been seen to wait long for its first
 * line; a boot step that is slow says so in the output ("still waiting: …").
 */
export async function waitForHealth(service: RunningService, expected = 200, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(`${service.name} exited (${service.child.exitCode ?? service.child.signalCode}):\n${service.output()}`);
    }
    if ((await healthStatus(service.port)) === expected) return;
    await sleep(200);
  }
  throw new Error(`${service.name} /health did not answer ${expected} within ${timeoutMs / 1000}s:\n${service.output()}`);
}

/** SIGTERM (graceful shutdown), then SIGKILL if it lingers; `signal` may ask for a hard kill at once. */
export async function stopService(service: RunningService, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return;
  // 'close', not 'exit': its last lines ("stopped cleanly") may still be in the pipe when it exits.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Stops whatever a caller started and left running: a test file whose set-up failed half-way (one
 * service exited, the others were up) must not leave live children that keep jest from exiting.
 */
export async function stopLeftoverServices(): Promise<string[]> {
  const leftovers = [...running];
  await Promise.all(leftovers.map((service) => stopService(service, 'SIGKILL')));
  return leftovers.map((service) => service.name);
}
