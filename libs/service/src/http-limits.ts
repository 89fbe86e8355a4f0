import type { Server } from 'node:http';
import type { HttpLimits } from '@app/config';

/**
 * Puts the limits on a server before it listens. A client over the headers or request timeout is
 * answered 408 and its socket closed; a connection over the cap is closed at once. The checking
 * interval is read by Node when the server starts listening, so this must run before `listen`.
 */
export function applyHttpLimits(server: Server, limits: HttpLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = limits.checkIntervalMs;
}
