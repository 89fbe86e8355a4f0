import { EnvReader } from './env-reader';

/**
 * How long and how many a caller may hold of an HTTP server. Node's defaults (60 s for the headers,
 * 300 s for a request, checked every 30 s, no cap on connections) let a few hundred clients that
 * send a byte now and then hold a service's sockets for minutes.
 */
export interface HttpLimits {
  /**
   * The whole request head must arrive within this. Node enforces it only on a connection whose
   * parser is new: one taken from its parser pool (after the server has answered a few requests)
   * keeps the last request's "headers complete" flag until the head ends (Node 24.22, measured).
   */
  headersTimeoutMs: number;
  /** The whole request, head and body, must arrive within this: the bound a slow client always meets. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this are refused at once (their socket closed). */
  maxConnections: number;
  /** How often the server looks for connections over the headers or request timeout. */
  checkIntervalMs: number;
}

export function loadHttpLimits(env: NodeJS.ProcessEnv = process.env, owner = 'http'): HttpLimits {
  const read = new EnvReader(env, owner);
  const headersTimeoutMs = read.duration('HTTP_HEADERS_TIMEOUT', '10s');
  const requestTimeoutMs = read.duration('HTTP_REQUEST_TIMEOUT', '30s');
  const keepAliveTimeoutMs = read.duration('HTTP_KEEP_ALIVE_TIMEOUT', '5s');
  const maxConnections = read.integer('HTTP_MAX_CONNECTIONS', 2000, { min: 1 });
  if (headersTimeoutMs <= 0 || requestTimeoutMs <= 0) read.problems.push('HTTP_HEADERS_TIMEOUT and HTTP_REQUEST_TIMEOUT must be above zero');
  if (headersTimeoutMs > requestTimeoutMs) {
    read.problems.push(`HTTP_HEADERS_TIMEOUT (${headersTimeoutMs} ms) must not be longer than HTTP_REQUEST_TIMEOUT (${requestTimeoutMs} ms)`);
  }
  // Checked four times per headers timeout (at most every second): a slow client is cut within ~25 % of it.
  const checkIntervalMs = Math.max(100, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
  return read.done({ headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections, checkIntervalMs });
}
