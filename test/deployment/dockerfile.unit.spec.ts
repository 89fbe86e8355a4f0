import * as fs from 'node:fs';
import * as path from 'node:path';
import { serviceNodeFlags } from '../../tools/run/service-process';

/** docker/Dockerfile cannot be built here (no Docker engine): what it runs is checked as text. */
describe('docker/Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(__dirname, '../../docker/Dockerfile'), 'utf8');

  it('runs every service with the heap flags the local runner uses', () => {
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(dockerfile)?.[1] ?? '';
    const command = (JSON.parse(entrypoint) as string[]).join(' ');
    expect(command).toContain(`exec node ${serviceNodeFlags.join(' ')} dist/apps/$0/main.js`);
  });
});
