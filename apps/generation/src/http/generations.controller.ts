import { Controller, Get, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { Caller } from '@app/auth';
import { KNEX, readConsistently } from '@app/database';
import { CurrentCaller, requireUuid, visibleOrNotFound } from '@app/service';
import { ReportStore } from '../jobs/report-store';
import { erased, PERSONAL_DATA, PersonalData } from '@app/personal-data';

@Controller('generations')
export class GenerationsController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    private readonly reports: ReportStore,
    @Inject(PERSONAL_DATA) private readonly personal: PersonalData,
  ) {}

  /** The finished report (Markdown) of a task: its owner's or an admin's; a viewer reads it too, like the task. */
  @Get(':taskId/report')
  async report(@CurrentCaller() caller: Caller, @Param('taskId') taskId: string, @Res() res: Response): Promise<void> {
    requireUuid(taskId, 'taskId');
    const job = await this.knex('generation_jobs').where({ task_id: taskId }).first();
    visibleOrNotFound(caller, job, (j) => j.user_id as string, `generation for task ${taskId}`);
    const stored = job.status === 'succeeded' ? (await this.reports.read(taskId))?.toString('utf8') : undefined;
    // Stored sealed under the user's data key: opened here, or gone with it.
    const report = stored === undefined ? undefined : (await this.personal.openerFor(this.knex, [stored]))(stored);
    if (report === undefined || report === erased)
      throw new NotFoundException(`task ${taskId} has no report${job.status === 'succeeded' ? ' stored any more' : ` (its generation is ${job.status})`}`);
    res.type('text/markdown; charset=utf-8').setHeader('content-disposition', `inline; filename="${taskId}.md"`);
    res.send(report);
  }

  /** The job of a task: its status, every attempt with its outcome and error, the report reference. Another user's is not found. */
  @Get(':taskId')
  async get(@CurrentCaller() caller: Caller, @Param('taskId') taskId: string) {
    requireUuid(taskId, 'taskId');
    const { job, attempts } = await readConsistently(this.knex, async (snapshot) => ({
      job: await snapshot('generation_jobs').where({ task_id: taskId }).first(),
      attempts: await snapshot('generation_attempts').where({ task_id: taskId }).orderBy('attempt'),
    }));
    visibleOrNotFound(caller, job, (j) => j.user_id as string, `generation for task ${taskId}`);
    return {
      taskId: job.task_id,
      status: job.status,
      reportRef: job.report_ref,
      nextAttemptAt: job.status === 'scheduled' && job.next_attempt_at ? new Date(job.next_attempt_at).toISOString() : null,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        startedAt: new Date(a.started_at).toISOString(),
        finishedAt: a.finished_at ? new Date(a.finished_at).toISOString() : null,
        outcome: a.outcome,
        errorCode: a.error_code,
        errorMessage: a.error_message,
      })),
    };
  }
}
