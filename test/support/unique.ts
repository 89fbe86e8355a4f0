import { randomBytes, randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';

/** A short random suffix for topics, consumer groups, subjects and databases of one test file. */
export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex');
}

/**
 * Test ports come from below the kernel's ephemeral range, never from it: a port the OS hands out
 * there is free only until the service listens on it, and a service boots for seconds while the
 * stack's clients open hundreds of outgoing connections, each taking an ephemeral port as its own
 * (CI once saw `listen EADDRINUSE` that way). 24000 and up stays clear of the stack's ports (19xxx)
 * and the chaos campaign's (23xxx).
 */
const lowestTestPort = 24_000;
const handedOut = new Set<number>();

/** Where the kernel's range for outgoing connections' own ports begins (Linux's default when unreadable). */
export function ephemeralRangeStart(): number {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}
const highestTestPort = Math.min(ephemeralRangeStart(), 65_536) - 1;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port nothing listens on now, not handed out before by this test file, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  if (highestTestPort - lowestTestPort < 1_000)
    throw new Error(`the ephemeral port range starts at ${highestTestPort + 1}: no room below it for test ports from ${lowestTestPort}`);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = randomInt(lowestTestPort, highestTestPort + 1);
    if (handedOut.has(port)) continue;
    handedOut.add(port); // before the check: a concurrent call must not pick it meanwhile
    if (await canListen(port)) return port;
    handedOut.delete(port);
  }
  throw new Error(`no free test port between ${lowestTestPort} and ${highestTestPort}`);
}
