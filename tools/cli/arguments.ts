import { InvalidArgumentError } from 'commander';

/** An ISO 8601 date or time, as epoch milliseconds. */
export function timeArgument(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new InvalidArgumentError(`"${value}" is not a date or time (ISO 8601)`);
  return ms;
}

/** Exit code of a CLI that failed: commander's own usage errors and --help, else 2. */
export function exitCodeOf(error: unknown): number {
  const { exitCode, code } = error as { exitCode?: number; code?: string };
  return exitCode !== undefined && code?.startsWith('commander.') ? (exitCode === 0 ? 0 : 2) : 2;
}
