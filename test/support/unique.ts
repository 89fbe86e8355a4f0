import { randomBytes } from 'node:crypto';
import * as net from 'node:net';

/** A short random suffix for topics, consumer groups, subjects and databases of one test file. */
export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
