import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { StackError } from '../tools/stack/processes';
import { stackUp } from '../tools/stack/stack';
import { loadStackConfig } from '../tools/stack/stack.config';
import { freePort } from './support/unique';

describe('the local stack command', () => {
  it('finds a stack that is already up and leaves it as it is', async () => {
    // Given the stack the test run brought up
    const lines: string[] = [];
    // When it is brought up once more
    await stackUp(loadStackConfig(), (line) => lines.push(line));
    // Then every part reports that it was already there
    expect(lines.find((l) => l.startsWith('kafka'))).toMatch(/already up/);
    expect(lines.find((l) => l.startsWith('registry'))).toMatch(/already up/);
    expect(lines.find((l) => l.startsWith('postgres'))).toMatch(/external|already up/);
  });

  it('refuses a port taken by a process it did not start, naming the part, and starts nothing', async () => {
    // Given a foreign listener on the port a second stack would use for Kafka
    const port = await freePort();
    const squatter = net.createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => squatter.once('listening', resolve));
    const stackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-'));
    const previous = { KAFKA_PORT: process.env.KAFKA_PORT, STACK_DIR: process.env.STACK_DIR };
    Object.assign(process.env, { KAFKA_PORT: String(port), STACK_DIR: stackDir });
    try {
      // When that stack is brought up
      const up = stackUp(loadStackConfig());
      // Then it fails with a message that names Kafka and the port
      await expect(up).rejects.toThrow(StackError);
      await expect(up).rejects.toMatchObject({ part: 'kafka', message: expect.stringContaining(`127.0.0.1:${port} is already taken`) });
      // And nothing was fetched or started for it
      expect(fs.existsSync(path.join(stackDir, 'run', 'kafka.pid'))).toBe(false);
      expect(fs.existsSync(path.join(stackDir, 'dist'))).toBe(false);
    } finally {
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      squatter.close();
      fs.rmSync(stackDir, { recursive: true, force: true });
    }
  });
});
