import { BadRequestException, Body, Controller, Get, Headers, Inject, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';
import { optionalInteger, requireObject, requireText, requireUuid } from '@app/service';
import { findTask, listTasks } from '../projection/task-queries';
import { submitTask, TaskSubmission } from '../submit/submit-task';
import { TASKS_CONFIG, TasksConfig } from '../tasks.config';

const allowedFields = new Set(['userId', 'reportType', 'input']);

@Controller('tasks')
export class TasksController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(TASKS_CONFIG) private readonly config: TasksConfig,
  ) {}

  @Post()
  async submit(@Headers('idempotency-key') key: string | undefined, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const result = await submitTask(this.knex, this.config, validKey(key), validSubmission(body));
    res.status(result.status).location(`/tasks/${result.body.taskId}`);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.body;
  }

  @Get(':taskId')
  async get(@Param('taskId') taskId: string) {
    const task = await findTask(this.knex, requireUuid(taskId, 'taskId'));
    if (!task) throw new NotFoundException(`no task ${taskId}`);
    return task;
  }

  @Get()
  async list(@Query('userId') userId: unknown, @Query('limit') limit: unknown, @Query('offset') offset: unknown) {
    return listTasks(
      this.knex,
      requireText(userId, 'userId query parameter', { max: 128 }),
      optionalInteger(limit, 'limit', 20, { min: 1, max: 100 }),
      optionalInteger(offset, 'offset', 0, { min: 0, max: 1_000_000 }),
    );
  }
}

function validKey(key: string | undefined): string {
  if (key === undefined || key === '') throw new BadRequestException('the Idempotency-Key header is required');
  if (key.length > 255) throw new BadRequestException(`the Idempotency-Key header must be at most 255 characters, got ${key.length}`);
  if (!/^[\x21-\x7e]+$/.test(key)) throw new BadRequestException('the Idempotency-Key header may hold only visible ASCII characters');
  return key;
}

function validSubmission(body: unknown): TaskSubmission {
  const fields = requireObject(body, 'the request body');
  const unknown = Object.keys(fields).filter((f) => !allowedFields.has(f));
  if (unknown.length) throw new BadRequestException(`the request body has unknown field(s): ${unknown.join(', ')}`);
  return {
    userId: requireText(fields.userId, 'userId', { max: 128, pattern: /^[A-Za-z0-9._@:-]+$/ }),
    reportType: requireText(fields.reportType, 'reportType', { max: 64, pattern: /^[a-z][a-z0-9_-]*$/ }),
    input: requireObject(fields.input, 'input'),
  };
}
