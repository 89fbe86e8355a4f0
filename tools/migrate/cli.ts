import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { serviceNames } from '@app/config';
import { serviceEntry } from '../run/service-process';

/**
 * `npm run migrate -- status|latest|rollback --service <name>` (or `--all`): each service's
 * migrations are code bundled with it, so the command runs the built service (`main.js migrate …`)
 * against the database its configuration names. `rollback` undoes the last batch.
 */
const program = new Command('migrate')
  .argument('<action>', 'status, latest or rollback')
  .option('--service <name>', `one of ${serviceNames.join(', ')}`, (value: string) => {
    if (!(serviceNames as readonly string[]).includes(value)) throw new InvalidArgumentError(`"${value}" is not one of ${serviceNames.join(', ')}`);
    return value;
  })
  .option('--all', 'every service, one after another')
  .action((action: string, options: { service?: string; all?: boolean }) => {
    if (!['status', 'latest', 'rollback'].includes(action)) program.error(`the action is status, latest or rollback, not "${action}"`);
    if (!options.service && !options.all) program.error('name a service with --service <name>, or --all');
    const targets = options.all ? [...serviceNames] : [options.service as (typeof serviceNames)[number]];
    for (const service of targets) {
      if (!fs.existsSync(serviceEntry(service))) program.error(`${serviceEntry(service)} is missing: run npm run build first`);
      const run = spawnSync(process.execPath, [serviceEntry(service), 'migrate', action], {
        stdio: 'inherit',
        env: { ...process.env, OTEL_SDK_DISABLED: 'true' },
      });
      if (run.status !== 0) process.exit(run.status ?? 1);
    }
  });

program.parse();
