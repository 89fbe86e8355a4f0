import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'pass' | 'fail-503' | 'hang';

/**
 * An HTTP proxy in front of a real server that can be told to answer 503 or to never answer, so a
 * test can make a dependency fail the way it fails in production while the dependency itself is fine.
 */
export class FaultyProxy {
  mode: ProxyMode = 'pass';
  /** Requests seen while failing or hanging. */
  refused = 0;
  private readonly server: http.Server;
  private readonly hanging = new Set<http.ServerResponse>();

  constructor(private readonly target: string) {
    this.server = http.createServer((request, response) => this.handle(request, response));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** The target's URL with this proxy's address in place of the target's. */
  get url(): string {
    const target = new URL(this.target);
    const port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`;
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (this.mode !== 'pass') {
      this.refused++;
      if (this.mode === 'hang') {
        this.hanging.add(response);
        return;
      }
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"error_code":50301,"message":"unavailable (test)"}');
      return;
    }
    const target = new URL(this.target);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: { ...request.headers, host: target.host } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  }
}
