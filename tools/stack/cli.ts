import { logTail, StackError } from './processes';
import { ensureKafkaPasswords } from './kafka-security';
import { ensureRegistryPasswords } from './registry-gate';
import { ensureSigningKeys } from './signing-keys';
import { addPartner, removePartner } from './partners';
import { stackDown, stackStatus, stackUp } from './stack';
import { loadStackConfig } from './stack.config';

const usage = 'usage: stack up [--brokers 1|3] [--postgres single|replicated] | down | status | secrets | partner-add <name> | partner-remove <name>';

async function main(command: string | undefined, options: string[]): Promise<number> {
  // `--brokers 3` is STACK_BROKERS=3: a replicated cluster of three nodes instead of one broker.
  // `--postgres replicated` is STACK_POSTGRES=replicated: a primary and a synchronous standby under Patroni (postgres-ha.ts).
  const brokers = options.indexOf('--brokers');
  const postgres = options.indexOf('--postgres');
  const config = loadStackConfig({
    ...process.env,
    ...(brokers >= 0 ? { STACK_BROKERS: options[brokers + 1] ?? '' } : {}),
    ...(postgres >= 0 ? { STACK_POSTGRES: options[postgres + 1] ?? '' } : {}),
  });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  switch (command) {
    case 'up': {
      const started = Date.now();
      await stackUp(config, print);
      print(`stack is up (${((Date.now() - started) / 1000).toFixed(1)}s); data and logs in ${config.stackDir}`);
      return 0;
    }
    case 'down':
      await stackDown(config, print);
      return 0;
    case 'status': {
      const parts = await stackStatus(config);
      for (const p of parts) {
        const owner = p.pid ? `pid ${p.pid}` : 'not started by the stack';
        print(`${p.part.padEnd(9)} ${(p.answers ? 'up' : 'DOWN').padEnd(5)} ${p.address}  (${owner})${p.log ? `  log ${p.log}` : ''}`);
      }
      return parts.every((p) => p.answers) ? 0 : 1;
    }
    case 'secrets': {
      // What docker/compose.yml mounts, made without starting anything (no Java needed).
      await ensureSigningKeys(config.stackDir);
      const principals = Object.keys(ensureKafkaPasswords(config.stackDir));
      ensureRegistryPasswords(config.stackDir);
      print(`secrets in ${config.stackDir}/auth: token signing keys, the webhook sealing key, Kafka and registry passwords of ${principals.join(', ')}`);
      return 0;
    }
    case 'partner-add': {
      // npm run partner:add -- <name>: the partner's principal, topics and ACLs (behind TOPIC_PREFIX, if set)
      const { principal } = await addPartner(config, options[0] ?? '', [process.env.TOPIC_PREFIX ?? '']);
      print(`partner ${options[0]} added: principal ${principal}; its topics partner.${options[0]}.*; its users are ${options[0]}:<id>`);
      print(`its credentials: npm run -s kafka:credentials -- ${principal}`);
      return 0;
    }
    case 'partner-remove':
      await removePartner(config, options[0] ?? '', [process.env.TOPIC_PREFIX ?? '']);
      print(`partner ${options[0]} removed: its credentials and grants are gone, its topics kept`);
      return 0;
    default:
      process.stderr.write(`${usage}\n`);
      return 2;
  }
}

main(process.argv[2], process.argv.slice(3)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof StackError) {
      process.stderr.write(`\nstack: ${error.part}: ${error.message}\n`);
      if (error.logFile) process.stderr.write(`--- last lines of ${error.logFile}\n${logTail(error.logFile)}\n`);
    } else {
      process.stderr.write(`\nstack: ${(error as Error).stack ?? String(error)}\n`);
    }
    process.exit(1);
  },
);
