import * as net from 'node:net';
import { ephemeralRangeStart, freePort } from './unique';

describe('freePort', () => {
  const ephemeralStart = ephemeralRangeStart();

  it('hands out distinct ports below the range the kernel gives outgoing connections', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(24_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });

  it('hands out ports one can listen on', async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
