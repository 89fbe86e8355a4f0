import { ApiBody, ApiHeader, ApiResponse, ApiTags } from '@nestjs/swagger';
import { BadRequestException, Body, Controller, Get, Headers, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { Caller, isViewer, masked } from '@app/auth';
import { KNEX } from '@app/database';
import { reportTypeMaxLength, reportTypePattern, userIdPattern } from '@app/events';
import { PERSONAL_DATA, PersonalData } from '@app/personal-data';
import {
  BodyShape,
  CurrentCaller,
  optionalInteger,
  readBody,
  requireIdempotencyKey,
  requireMayActFor,
  requireUuid,
  schemaOf,
  visibleOrNotFound,
} from '@app/service';
import { cancelByRequest } from '../cancel/cancel-by-request';
import { findTask } from '../projection/task-queries';
import { countTasks, searchTasks } from '../projection/task-search';
import { taskFilterOf } from './task-filter';
import { checkInput, InputLimits } from '../submit/request-limits';
import { submitTask, TaskSubmission } from '../submit/submit-task';
import { TASKS_CONFIG, TasksConfig } from '../tasks.config';

/** POST /tasks's body: checked with it, documented from it. */
const submissionShape: BodyShape = {
  fields: {
    input: { kind: 'object', description: 'the task’s input (≤ 32 levels, ≤ 10 000 values); `simulate` drives the bundled model simulator' },
    userId: { kind: 'text', max: 128, pattern: userIdPattern, description: 'an admin submits for another user; anyone else only for themself' },
    reportType: { kind: 'text', max: reportTypeMaxLength, pattern: reportTypePattern, example: 'summary' },
  },
  required: ['input', 'reportType'],
  closed: true,
};

@ApiTags('tasks')
@Controller('tasks')
export class TasksController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
    @Inject(PERSONAL_DATA) private readonly personal: PersonalData,
  ) {}

  /** The user comes from the token; a body userId must name the caller, unless the caller is an admin. */
  @Post()
  @ApiHeader({
    name: 'Idempotency-Key',
    required: true,
    description: 'the same key and body again: the same answer (Idempotent-Replayed: true); another body: 422',
  })
  @ApiBody({ schema: schemaOf(submissionShape) })
  @ApiResponse({ status: 202, description: 'accepted: `{taskId, state, …}` and `Location`' })
  @ApiResponse({ status: 422, description: 'the Idempotency-Key was used with another body' })
  @ApiResponse({ status: 429, description: 'too fast, or too many unfinished tasks: `Retry-After`' })
  async submit(
    @CurrentCaller() caller: Caller,
    @Headers('idempotency-key') key: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const submission = validSubmission(body, caller, this.config.inputLimits);
    requireMayActFor(caller, submission.userId);
    const result = await submitTask(this.knex, this.config, this.personal, requireIdempotencyKey(key), submission);
    res.status(result.status).location(`/tasks/${result.body.taskId}`);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.body;
  }

  /**
   * The task's owner (or an admin) stops it: the tasks service decides at once, against the outcome it
   * has recorded, and the cancel then travels to quota (refund or refusal) and generation (the job and
   * its model call stopped).
   */
  @Post(':taskId/cancel')
  @ApiHeader({ name: 'Idempotency-Key', required: true, description: 'the same key again: the same answer (Idempotent-Replayed: true)' })
  @ApiResponse({ status: 202, description: 'cancelled: `{taskId, userId, state: CANCELLED, reason, reportRef}`; never charged' })
  @ApiResponse({ status: 409, description: 'the task had already ended: its outcome stands, in the body' })
  @ApiResponse({ status: 403, description: 'a viewer changes nothing' })
  @ApiResponse({ status: 404, description: 'no such task, or another user’s' })
  async cancel(
    @CurrentCaller() caller: Caller,
    @Headers('idempotency-key') key: string | undefined,
    @Param('taskId') taskId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    const answer = await cancelByRequest(this.knex, this.config, caller, requireUuid(taskId, 'taskId'), requireIdempotencyKey(key));
    res.status(answer.status);
    if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return answer.body;
  }

  /** How many tasks the same filter as GET /tasks matches, in each state. */
  @Get('counts')
  async counts(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>) {
    return countTasks(this.knex, taskFilterOf(caller, query));
  }

  /** Another user's task is not found, as one that does not exist; a viewer sees others' inputs masked. */
  @Get(':taskId')
  async get(@CurrentCaller() caller: Caller, @Param('taskId') taskId: string) {
    const task = visibleOrNotFound(caller, await findTask(this.knex, requireUuid(taskId, 'taskId'), this.personal), (t) => t.userId, `task ${taskId}`);
    if (!isViewer(caller) || task.userId === caller.userId) return task;
    const timeline = task.timeline.map((e) => ('input' in e.data ? { ...e, data: { ...e.data, input: masked } } : e));
    return { ...task, input: masked, timeline };
  }

  /**
   * The caller's tasks, or (admin, viewer) the named user's, or everyone's with `userId=*`; narrowed
   * by `state`, `reportType`, `errorCode` and a creation window (`createdFrom`, `createdBefore`),
   * newest first, each with the error code it failed with.
   */
  @Get()
  async list(@CurrentCaller() caller: Caller, @Query() query: Record<string, unknown>) {
    return searchTasks(
      this.knex,
      taskFilterOf(caller, query),
      optionalInteger(query.limit, 'limit', 20, { min: 1, max: 100 }),
      optionalInteger(query.offset, 'offset', 0, { min: 0, max: 1_000_000 }),
    );
  }
}

function validSubmission(body: unknown, caller: Caller, limits: InputLimits): TaskSubmission {
  const fields = readBody(body, submissionShape);
  const refusal = checkInput(fields.input as Record<string, unknown>, limits);
  if (refusal) throw new BadRequestException(refusal.message);
  return {
    userId: (fields.userId as string | undefined) ?? caller.userId,
    reportType: fields.reportType as string,
    input: fields.input as Record<string, unknown>,
  };
}
