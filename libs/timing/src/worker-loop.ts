import { BackoffPolicy, exponentialDelay } from './backoff';

/** Where a failed round is reported (a Nest Logger fits; this lib depends on no framework). */
export interface WarningLog {
  warn(message: string): void;
}

export interface WorkerLoopOptions {
  name: string;
  logger: WarningLog;
  pollIntervalMs: number;
  failureBackoff?: BackoffPolicy;
}

/**
 * Runs `round` over and over: at once again while it reports more work, otherwise after the poll
 * interval or as soon as `wake()` is called. A wake that arrives during a round is kept, so the
 * next round follows at once. A failing round is retried after an exponential backoff that wakes
 * do not cut short, so a burst of wakes cannot hammer a broken dependency.
 */
export class WorkerLoop {
  private readonly logger: WarningLog;
  private active = false;
  private loop?: Promise<void>;
  private pendingWake = false;
  private interrupt?: () => void;
  private interruptibleByWake = false;

  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly options: WorkerLoopOptions,
  ) {
    this.logger = options.logger;
  }

  /** True from start() until stop(): the loop keeps going through failing rounds. */
  get running(): boolean {
    return this.active;
  }

  start(): void {
    this.active = true;
    this.loop = this.run();
  }

  wake(): void {
    this.pendingWake = true;
    if (this.interruptibleByWake) this.interrupt?.();
  }

  /** Lets the round in flight finish. */
  async stop(): Promise<void> {
    this.active = false;
    this.interrupt?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.active) {
      let moreWork: boolean;
      try {
        moreWork = await this.round();
        failures = 0;
      } catch (error) {
        failures++;
        const delay = exponentialDelay(failures, this.options.failureBackoff ?? { initialMs: 200, maxMs: 10_000, jitter: 0.2 });
        this.logger.warn(`round failed (${(error as Error).message}); retrying in ${delay} ms`);
        await this.sleep(delay, false);
        continue;
      }
      if (!moreWork) await this.sleep(this.options.pollIntervalMs, true);
    }
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (!this.active) return Promise.resolve();
    if (wakeable && this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.interrupt = undefined;
        if (wakeable) this.pendingWake = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.interrupt = done;
      this.interruptibleByWake = wakeable;
    });
  }
}
