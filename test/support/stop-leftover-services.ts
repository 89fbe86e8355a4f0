import { stopLeftoverServices } from '../../tools/run/service-process';

// After every test file that runs on the stack: a file whose own clean-up did not run (its set-up
// failed half-way) would otherwise leave services running, and jest would wait on them for ever.
afterAll(async () => {
  const stopped = await stopLeftoverServices();
  if (stopped.length > 0) process.stderr.write(`stopped services this test file left running: ${stopped.join(', ')}\n`);
});
