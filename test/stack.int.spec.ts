import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createKnex } from '@app/database';
import { postgresAnswers, startPostgres, stopPostgres } from '../tools/stack/postgres';
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
    expect(lines.find((l) => l.startsWith('zipkin'))).toMatch(/already up/);
    expect(lines.find((l) => l.startsWith('prometheus'))).toMatch(/already up/);
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

describe('the local stack without a PostgreSQL server', () => {
  it('makes a private cluster with initdb on the port DATABASE_URL names, and stops only that', async () => {
    // Given a DATABASE_URL on this machine where nothing answers, and a fresh stack folder that the
    // postgres user can reach (initdb runs as that user when the stack runs as root)
    const port = await freePort();
    const stackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-pg-'));
    fs.chmodSync(stackDir, 0o755);
    const previous = { DATABASE_URL: process.env.DATABASE_URL, STACK_DIR: process.env.STACK_DIR };
    Object.assign(process.env, { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, STACK_DIR: stackDir });
    const config = loadStackConfig();
    try {
      expect(await postgresAnswers(config.databaseUrl)).toBe(false);

      // When the stack's PostgreSQL part is brought up, twice
      expect(await startPostgres(config)).toBe('started');
      expect(await startPostgres(config)).toBe('already up');

      // Then it answers there, with a database for each service and one for the registry
      const db = createKnex(config.databaseUrl, 1);
      try {
        const names = (await db('pg_database').select('datname')).map((row: { datname: string }) => row.datname);
        expect(names).toEqual(expect.arrayContaining([config.registry.database, ...config.serviceDatabases]));
      } finally {
        await db.destroy();
      }

      // And stopping it stops that cluster, while the machine's server goes on answering
      expect(await stopPostgres(config)).toBe(true);
      expect(await postgresAnswers(config.databaseUrl)).toBe(false);
      expect(await postgresAnswers(previous.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')).toBe(true);
    } finally {
      await stopPostgres(config);
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      fs.rmSync(stackDir, { recursive: true, force: true });
    }
  }, 120_000);
});
