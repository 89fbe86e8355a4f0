import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import pino, { Logger as Pino } from 'pino';
import { currentFacts } from '@app/tracing';

/** Nest's level names to pino's: LOG_LEVEL keeps meaning what it meant. */
const pinoLevels: Record<string, string> = { fatal: 'fatal', error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' };

/** Requests too frequent and too dull to log one by one. */
const quietPaths = new Set(['/metrics', '/health', '/health/live', '/health/ready']);

/**
 * Whatever a message says, what must never reach a log: a password in a URL, a bearer token, a
 * webhook secret. Requests are logged without their headers in the first place; this catches the
 * rest (an error that quotes a connection string, say).
 */
export function scrubSecrets(text: string): string {
  // Every pattern is linear in the text: a scheme is at most 32 characters and a token starts only
  // where a word does not. Unbounded, a path of 16 KB like `/a.a.a.…` or `/eyJ-eyJ-…` (sent without
  // a token, so refused and logged) cost ~90 ms of backtracking and held the event loop.
  return text
    .replace(/(\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]*:)[^\s@/]+@/gi, '$1***@')
    .replace(/\b(bearer\s+)[\w.~+/-]+=*/gi, '$1***')
    .replace(/\bwhsec_[A-Za-z0-9+/=]+/g, 'whsec_***')
    .replace(/(?<![\w-])eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '***');
}

/** The longest path a request line logs: enough to know the route, never a caller's megabyte. */
const loggedPathChars = 512;

function loggedPath(req: IncomingMessage): string {
  const path = (req.url ?? '').split('?')[0];
  return scrubSecrets(path.length > loggedPathChars ? `${path.slice(0, loggedPathChars)}…` : path);
}

function scrubbed(value: unknown): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value instanceof Error) return { type: value.name, message: scrubSecrets(value.message), stack: value.stack && scrubSecrets(value.stack) };
  return value;
}

/**
 * JSON lines on stdout, one logger per process: each line has the service's name and, where known,
 * the taskId, eventId, correlationId and traceId of the work it is about (from the spans in scope).
 */
export function createRootLogger(service: string): Pino {
  return pino(
    {
      level: pinoLevels[process.env.LOG_LEVEL ?? ''] ?? 'info',
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const { taskId, eventId, correlationId, traceId } = currentFacts();
        return Object.fromEntries(Object.entries({ taskId, eventId, correlationId, traceId }).filter(([, v]) => v !== undefined));
      },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map(scrubbed) as Parameters<typeof method>);
        },
      },
    },
    // Synchronous: a service's last lines ("stopped cleanly", a fatal boot error) are written before it exits.
    pino.destination({ dest: 1, sync: true }),
  );
}

/** Nest's logging through pino, with one line per HTTP request: method, path, status, time; never a header. */
export function loggingModule(logger: Pino) {
  return LoggerModule.forRoot({
    pinoHttp: {
      logger,
      autoLogging: { ignore: (req: IncomingMessage) => quietPaths.has((req.url ?? '').split('?')[0]) },
      serializers: {
        req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, url: loggedPath(req) }),
        res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      },
      customSuccessMessage: (req: IncomingMessage, res: ServerResponse) => `${req.method} ${loggedPath(req)} ${res.statusCode}`,
      customErrorMessage: (req: IncomingMessage, res: ServerResponse) => `${req.method} ${loggedPath(req)} ${res.statusCode}`,
    },
  });
}
