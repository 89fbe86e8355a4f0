import { logTail, StackError } from '../stack/processes';
import { stackUp } from '../stack/stack';
import { loadStackConfig, prometheusUrl, zipkinUrl } from '../stack/stack.config';
import { RunningService } from './service-process';
import { Supervisor } from './supervisor';

export const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Brings the stack up if needed, runs the four services in the foreground, runs `afterHealthy`
 * once all are healthy, and keeps them running until Ctrl-C. Used by `npm start` and `npm run demo`.
 */
export function runPlatform(afterHealthy: (services: RunningService[]) => Promise<void> = async () => undefined, env: NodeJS.ProcessEnv = {}): void {
  const supervisor = new Supervisor(print, env);
  const main = async () => {
    await stackUp(undefined, print);
    const stopped = supervisor.untilSignalled();
    const services = await supervisor.startAll();
    print(`\nall services healthy: ${services.map((s) => `${s.name} http://127.0.0.1:${s.port}`).join(', ')}`);
    print(`traces ${zipkinUrl(loadStackConfig())}/zipkin/  metrics and alerts ${prometheusUrl(loadStackConfig())}/alerts`);
    await afterHealthy(services);
    print('\nrunning; press Ctrl-C to stop the services (the stack stays up: npm run stack:down)');
    await stopped;
  };
  main().then(
    () => process.exit(0),
    async (error: unknown) => {
      process.stderr.write(`\nfailed: ${(error as Error).message}\n`);
      if (error instanceof StackError && error.logFile) process.stderr.write(`--- ${error.logFile}\n${logTail(error.logFile)}\n`);
      await supervisor.stopAll();
      process.exit(1);
    },
  );
}
