import * as net from 'node:net';

/**
 * A TCP relay between a client and a real PostgreSQL that reads the client's side of the protocol
 * and, once armed, cuts the connection right after passing on the COMMIT of a transaction that wrote
 * to a given table: the server gets the COMMIT and carries it out, the client never hears how it
 * went — a connection lost during COMMIT, as a failover makes it.
 */
export class CommitCutter {
  private readonly server = net.createServer((client) => this.relay(client));
  private armedFor?: string;
  /** COMMITs passed on and then cut. */
  cuts = 0;

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Cuts the next COMMIT of a transaction whose statements mention `table`. */
  arm(table: string): void {
    this.armedFor = table;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  constructor(private readonly upstream: { host: string; port: number }) {}

  private relay(client: net.Socket): void {
    const server = net.connect(this.upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    let wroteTable = false;
    server.on('data', (chunk) => client.write(chunk));
    server.on('error', () => client.destroy());
    client.on('error', () => server.destroy());
    server.on('close', () => client.destroy());
    client.on('close', () => server.end());
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Whole messages only: the startup message has no type byte, every later one has one.
      for (;;) {
        const headerLength = started ? 5 : 4;
        if (pending.length < headerLength) return;
        const length = pending.readInt32BE(started ? 1 : 0) + (started ? 1 : 0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const type = started ? String.fromCharCode(message[0]) : '';
        started = true;
        const text = type === 'Q' || type === 'P' ? message.subarray(5).toString('utf8') : '';
        if (this.armedFor && text.includes(`"${this.armedFor}"`)) wroteTable = true;
        server.write(message);
        if (type === 'Q' && /^COMMIT\b/i.test(text) && wroteTable && this.armedFor) {
          this.armedFor = undefined;
          this.cuts++;
          // The COMMIT goes on to the server, then end of stream; the client's side is cut at once.
          server.end();
          client.destroy();
          return;
        }
        if (type === 'Q' && /^(COMMIT|ROLLBACK)\b/i.test(text)) wroteTable = false;
      }
    });
  }
}
