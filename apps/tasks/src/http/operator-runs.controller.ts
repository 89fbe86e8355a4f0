import { ApiBody, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Body, Controller, ForbiddenException, Get, HttpCode, Inject, NotFoundException, Param, Post, Query } from '@nestjs/common';
import type { Knex } from 'knex';
import { Caller, isAdmin, isOperator } from '@app/auth';
import { KNEX } from '@app/database';
import { BodyShape, CurrentCaller, optionalInteger, readBody, requireUuid, schemaOf } from '@app/service';
import { OperatorRunWorker } from '../operator-runs/operator-run.worker';
import { findRun, OperatorRun, planRun, recentRuns, startRun } from '../operator-runs/operator-runs';
import { openTaskIds } from '../projection/task-search';
import { taskFilterOf } from './task-filter';

/** The most tasks one bulk cancel takes: a larger cleanup is several, each looked at first. */
export const bulkCancelLimit = 1000;
const filterFields = ['userId', 'state', 'reportType', 'errorCode', 'createdFrom', 'createdBefore'];

const planShape: BodyShape = {
  fields: { filter: { kind: 'text', max: 2048, description: "GET /tasks's query string (userId, state, reportType, errorCode, createdFrom, createdBefore)" } },
  required: ['filter'],
  closed: true,
};
const startShape: BodyShape = {
  fields: { rate: { kind: 'integer', min: 1, max: 100, description: 'items a second at most' } },
  required: ['rate'],
  closed: true,
};

/**
 * Work an operator asks for over many tasks: a dry run that names the items and stores the plan, then
 * a start (admin) that any tasks instance works through, resumed after a restart, with its audit lines.
 */
@ApiTags('operator runs')
@Controller('operator-runs')
export class OperatorRunsController {
  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    private readonly worker: OperatorRunWorker,
  ) {}

  /** The dry run of a bulk cancel: the open tasks the filter matches now, newest first (at most 1,000); nothing is cancelled. */
  @Post('bulk-cancels')
  @ApiBody({ schema: schemaOf(planShape) })
  @ApiResponse({ status: 201, description: 'the planned run, its items the tasks a start would cancel' })
  async planBulkCancel(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<OperatorRun> {
    adminOnly(caller);
    const { filter } = readBody(body, planShape, 'body') as { filter: string };
    const query = Object.fromEntries([...new URLSearchParams(filter)].filter(([name]) => filterFields.includes(name)));
    const taskFilter = taskFilterOf(caller, query);
    const { taskIds, truncated } = await openTaskIds(this.knex, taskFilter, bulkCancelLimit);
    const kept = new URLSearchParams(Object.entries(query) as Array<[string, string]>).toString();
    return planRun(this.knex, { kind: 'bulk-cancel', requestedBy: caller.userId, filter: kept, items: taskIds, truncated });
  }

  /** Runs a planned run, at most `rate` items a second; a second start changes nothing. */
  @Post(':runId/start')
  @HttpCode(202)
  @ApiBody({ schema: schemaOf(startShape) })
  async start(@CurrentCaller() caller: Caller, @Param('runId') runId: string, @Body() body: unknown): Promise<OperatorRun> {
    adminOnly(caller);
    const { rate } = readBody(body, startShape, 'body') as { rate: number };
    const run = await startRun(this.knex, requireUuid(runId, 'runId'), caller.userId, rate);
    if (!run) throw new NotFoundException(`no operator run ${runId}`);
    this.worker.wake();
    return run;
  }

  /** Operators: a run, its items, progress and audit lines. */
  @Get(':runId')
  async get(@CurrentCaller() caller: Caller, @Param('runId') runId: string): Promise<OperatorRun> {
    if (!isOperator(caller)) throw new ForbiddenException('only an operator reads operator runs');
    const run = await findRun(this.knex, requireUuid(runId, 'runId'));
    if (!run) throw new NotFoundException(`no operator run ${runId}`);
    return run;
  }

  /** Operators: the newest runs, planned, running and finished. */
  @Get()
  async list(@CurrentCaller() caller: Caller, @Query('limit') limit: unknown) {
    if (!isOperator(caller)) throw new ForbiddenException('only an operator reads operator runs');
    return { items: await recentRuns(this.knex, optionalInteger(limit, 'limit', 20, { min: 1, max: 100 })) };
  }
}

function adminOnly(caller: Caller): void {
  if (!isAdmin(caller)) throw new ForbiddenException('only an admin plans or starts an operator run');
}
