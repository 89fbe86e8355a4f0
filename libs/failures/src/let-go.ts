/** Where a failure let go is written: any logger with debug and warn (Nest's Logger is one). */
export interface FailureLog {
  debug(message: string): void;
  warn(message: string): void;
}

/**
 * A `.catch` handler for a failure the caller can do without, saying why: the failure and the
 * reason are written to `log` (at debug, an expected one, as a client closed while its broker is
 * gone; at warn, one an operator should see), and `fallback` is the answer. Nothing fails silently
 * (npm run lint refuses a `.catch` that ignores its error).
 */
export function letGo<T = undefined>(why: string, log: FailureLog, options: { level?: 'debug' | 'warn'; fallback?: T } = {}): (error: unknown) => T {
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    log[options.level ?? 'debug'](`${why} (${message})`);
    return options.fallback as T;
  };
}
