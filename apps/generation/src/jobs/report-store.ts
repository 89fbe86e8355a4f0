import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** Where a client fetches a task's report: the generation service's API (owner or admin). */
export function reportRefOf(taskId: string): string {
  return `/generations/${taskId}/report`;
}

/**
 * The reports directory cannot take a file now — full, over quota, or read-only — whatever the
 * report: an outage of the storage, to be waited out, never a failure of the attempt.
 */
export function isStorageOutage(error: unknown): boolean {
  return ['ENOSPC', 'EDQUOT', 'EROFS'].includes((error as { code?: unknown } | null)?.code as string);
}

/**
 * Reports are written to a temporary file first and moved into place, so that a report is either
 * whole or absent; temporary files of a task are removed when its generation fails. Every instance of
 * the service reads and writes the same directory (REPORTS_DIR: shared storage when they run apart).
 */
export class ReportStore {
  /** The temporary directory made once, not before every report (made again after a failed save). */
  private tmpDirMade?: Promise<unknown>;

  constructor(private readonly dir: string) {}

  private get tmpDir(): string {
    return path.join(this.dir, 'tmp');
  }

  async save(taskId: string, attempt: number, content: string): Promise<string> {
    const temporary = path.join(this.tmpDir, `${taskId}.${attempt}.part`);
    const name = `${taskId}.md`;
    try {
      await (this.tmpDirMade ??= fs.mkdir(this.tmpDir, { recursive: true }));
      await fs.writeFile(temporary, content);
      await fs.rename(temporary, path.join(this.dir, name));
    } catch (error) {
      this.tmpDirMade = undefined; // someone may have removed the directory
      await fs.rm(temporary, { force: true });
      throw error;
    }
    return reportRefOf(taskId);
  }

  /** The stored report of a task, or undefined when there is none (yet, or any more). */
  async read(taskId: string): Promise<Buffer | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(taskId)) return undefined;
    return fs.readFile(path.join(this.dir, `${taskId}.md`)).catch(unlessMissing(undefined));
  }

  /** A report that must not be kept (its task was cancelled, its user erased); 1 if there was one. */
  async remove(taskId: string): Promise<number> {
    if (!/^[0-9a-f-]{36}$/i.test(taskId)) return 0;
    const file = path.join(this.dir, `${taskId}.md`);
    const existed = await fs.stat(file).then(
      () => 1,
      () => 0,
    );
    await fs.rm(file, { force: true });
    return existed;
  }

  async removeTemporaryFiles(taskId: string): Promise<number> {
    const names = await fs.readdir(this.tmpDir).catch(unlessMissing([] as string[]));
    const ours = names.filter((name) => name.startsWith(`${taskId}.`));
    await Promise.all(ours.map((name) => fs.rm(path.join(this.tmpDir, name), { force: true })));
    return ours.length;
  }
}

/** `missing` when the file or folder is not there (yet, or any more); any other failure is thrown. */
function unlessMissing<T>(missing: T): (error: unknown) => T {
  return (error) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return missing;
    throw error;
  };
}
