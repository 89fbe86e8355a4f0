import type { LogLevel } from '@nestjs/common';

const ordered: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** LOG_LEVEL=debug shows debug and everything above it; the default is `log`. */
export function logLevelsFrom(level: string | undefined, fallback: LogLevel = 'log'): LogLevel[] {
  const wanted = (ordered as string[]).includes(level ?? '') ? (level as LogLevel) : fallback;
  return ordered.slice(0, ordered.indexOf(wanted) + 1);
}
