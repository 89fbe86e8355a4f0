import * as net from 'node:net';
import type { ISocketFactory } from 'kafkajs';

/** Kafka's request header starts after the 4-byte size with the API key; 0 is Produce. */
const produceApiKey = 0;

/**
 * kafkajs's sockets to the real broker, through which a test can lose the broker's answer to a
 * produce request: the request reaches the broker and is appended, the client never hears back,
 * and connections are refused until `heal()`, as when a broker dies just after appending. The
 * broker and its log are real; only the answer is lost on the way back.
 */
export class LossyKafkaNetwork {
  lostAnswers = 0;
  refusedConnections = 0;
  private loseNextAnswer = false;
  private refusing = false;
  private closedPort?: number;

  /** Loses the answer to the next produce request, then refuses connections until healed. */
  loseNextProduceAnswer(): void {
    this.loseNextAnswer = true;
  }

  heal(): void {
    this.refusing = false;
  }

  readonly socketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
    if (ssl) throw new Error('LossyKafkaNetwork speaks plaintext only');
    if (this.refusing) {
      this.refusedConnections++;
      return net.connect({ host: '127.0.0.1', port: this.closedPort! }, onConnect);
    }
    const socket = net.connect({ host, port }, onConnect);
    const emit = socket.emit.bind(socket);
    let deaf = false;
    socket.emit = ((event: string, ...args: unknown[]) => (deaf && event === 'data' ? true : emit(event, ...args))) as typeof socket.emit;
    const write = socket.write.bind(socket);
    socket.write = ((chunk: unknown, ...rest: never[]) => {
      if (this.loseNextAnswer && Buffer.isBuffer(chunk) && chunk.length > 6 && chunk.readInt16BE(4) === produceApiKey) {
        this.loseNextAnswer = false;
        this.refusing = true;
        deaf = true;
        this.lostAnswers++;
        // Long enough for the broker to append and answer into a socket nobody reads.
        setTimeout(() => socket.destroy(Object.assign(new Error('read ECONNRESET (answer lost)'), { code: 'ECONNRESET' })), 1000);
      }
      return write(chunk as Buffer, ...rest);
    }) as typeof socket.write;
    return socket;
  };

  /** Finds a port nothing listens on, for refused connections. */
  async start(): Promise<this> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.closedPort = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    return this;
  }
}
