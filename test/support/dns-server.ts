import * as dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

/**
 * A tiny DNS server for tests: answers A queries with whatever `answer(name)` says at that moment
 * (so a test can make a name resolve outside at first and inside later), AAAA with nothing, or with
 * SERVFAIL when `failAaaa` is set (a server broken for one family).
 */
export class TestDnsServer {
  readonly queries: string[] = [];
  private readonly socket = dgram.createSocket('udp4');

  constructor(
    private readonly answer: (name: string) => string | undefined,
    private readonly failAaaa = false,
  ) {}

  async start(): Promise<this> {
    this.socket.on('message', (query, from) => this.socket.send(this.respond(query), from.port, from.address));
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    return this;
  }

  get address(): string {
    return `127.0.0.1:${(this.socket.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private respond(query: Buffer): Buffer {
    const labels: string[] = [];
    let at = 12;
    while (query[at] !== 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
      at += query[at] + 1;
    }
    const questionEnd = at + 5; // the terminating zero, QTYPE and QCLASS
    const name = labels.join('.').toLowerCase();
    const type = query.readUInt16BE(at + 1);
    this.queries.push(`${type === 1 ? 'A' : type === 28 ? 'AAAA' : type} ${name}`);
    const address = type === 1 ? this.answer(name) : undefined;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    // A response; SERVFAIL for AAAA when told, NXDOMAIN when there is nothing at all.
    header.writeUInt16BE(type === 28 && this.failAaaa ? 0x8182 : address || type === 28 ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    const question = query.subarray(12, questionEnd);
    if (!address) return Buffer.concat([header, question]);
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name, as a pointer to the question's
    record.writeUInt16BE(1, 2); // A
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(0, 6); // TTL 0: ask again every time
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    return Buffer.concat([header, question, record]);
  }
}
