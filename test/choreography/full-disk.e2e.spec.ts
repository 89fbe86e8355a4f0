import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Platform } from '../support/platform';
import { waitFor } from '../support/wait-for';

/**
 * A reports directory that takes no file (full, on a filesystem of its own) is an outage of the
 * storage: the attempt keeps the model's answer and waits, the model is not called again, and the
 * task completes once there is room.
 */
describe('a full reports directory', () => {
  const platform = new Platform();
  const filler = path.join(platform.reportsDir, 'filler');
  beforeAll(async () => {
    // A small filesystem of its own under the reports directory (tmpfs: root, as the stack runs here)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', platform.reportsDir]);
    await platform.start();
  });
  afterAll(async () => {
    // Detached first (lazily: generation may still hold it), so that the platform can remove its folder.
    execFileSync('umount', ['-l', platform.reportsDir]);
    await platform.stop();
  });

  /** Fills the filesystem up to its last byte. */
  function fillUp(): void {
    const chunk = Buffer.alloc(4096, 1);
    const fd = fs.openSync(filler, 'w');
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      fs.closeSync(fd);
    }
  }
  const progressOf = async () =>
    ((await (await fetch(`${platform.url('generation')}/health`)).json()) as { info?: { progress?: { stalled?: string[] } } }).info?.progress;

  it('waits with the answer while the disk is full, calls the model once, and completes once there is room', async () => {
    // Given a reports directory with no room left
    fs.mkdirSync(path.join(platform.reportsDir, 'tmp'), { recursive: true });
    fillUp();

    // When a task is submitted
    const { body } = await platform.submit('full-disk-user');

    // Then generation says it is degraded by its reports directory, and the task waits unfinished
    const progress = await waitFor(async () => (await progressOf())?.stalled?.length && progressOf(), { what: '/health to name the reports directory' });
    expect(progress).toMatchObject({
      status: 'up',
      degraded: true,
      stalled: [expect.stringMatching(/^reports: the reports directory takes no file \(ENOSPC\)/)],
    });
    // (its GenerationStarted reaches the timeline through tasks' bookkeeping group, which fetches lazily)
    await waitFor(async () => (await platform.task(body.taskId)).state === 'RUNNING', { what: 'the task shown running' });

    // When room is made
    fs.rmSync(filler);

    // Then the task completes after one attempt: the model was not called again for the disk
    const task = await platform.settled(body.taskId);
    expect(task).toMatchObject({ state: 'SUCCESS', attempts: 1 });
    expect(task.timeline.filter((e: { eventType: string }) => e.eventType === 'GenerationStarted')).toHaveLength(1);
    expect((await platform.generation(body.taskId)).attempts).toHaveLength(1);
    expect(fs.existsSync(path.join(platform.reportsDir, `${body.taskId}.md`))).toBe(true);
    expect((await progressOf())?.stalled).toBeUndefined();
  });
});
