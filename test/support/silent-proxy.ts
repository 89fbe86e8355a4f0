import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a real server that can fall silent: while silent it passes nothing either
 * way and closes nothing — what a client sees of a server behind a network that drops its packets
 * (no reset, no answer). What was held back is passed on, in order, when it heals, as TCP's
 * retransmissions would once the network carries packets again.
 */
export class SilentProxy {
  private silent = false;
  private held: Array<() => void> = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((client) => this.connect(client));

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  silence(): void {
    this.silent = true;
  }

  heal(): void {
    this.silent = false;
    const held = this.held;
    this.held = [];
    for (const pass of held) pass();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private connect(client: net.Socket): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: net.Socket, to: net.Socket): void {
    from.on('data', (chunk) => {
      const pass = () => to.write(chunk);
      if (this.silent) this.held.push(pass);
      else pass();
    });
  }
}
