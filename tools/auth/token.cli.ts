import { Command, InvalidArgumentError } from 'commander';
import { Role, roles } from '@app/auth';
import { exitCodeOf } from '../cli/arguments';
import { signLocalToken } from './sign-token';

/** `npm run -s token -- --user <id> [--role admin|viewer] [--ttl 1h]`: one token, as the last line. */
const role = (value: string, previous: Role[] = []) => {
  if (!(roles as readonly string[]).includes(value)) throw new InvalidArgumentError(`"${value}" is not one of ${roles.join(', ')}`);
  return [...previous, value as Role];
};
const program = new Command()
  .name('token')
  .description("Print a bearer token signed with the local stack's key.")
  .requiredOption('--user <id>', 'the user the token speaks for (its sub)')
  .option('--role <role>', 'admin or viewer; repeat for both', role)
  .option('--ttl <duration>', 'lifetime, e.g. 15m, 1h, 7d', '1h')
  .exitOverride();

async function main(): Promise<void> {
  program.parse();
  const options = program.opts<{ user: string; role?: Role[]; ttl: string }>();
  process.stdout.write(`${await signLocalToken({ userId: options.user, roles: options.role, ttl: options.ttl })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (!(error as { code?: string }).code?.startsWith('commander.')) process.stderr.write(`token failed: ${(error as Error).message}\n`);
    process.exit(exitCodeOf(error));
  },
);
