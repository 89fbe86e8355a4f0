import { randomUUID } from 'node:crypto';
import { Body, Controller, ForbiddenException, Get, Header, HttpStatus, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { isAdmin } from '@app/auth';
import { TaskState, taskStates, terminalStates } from '@app/task-state';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html } from '../html/html';
import { csrfField, page, table, when } from '../html/layout';
import { PlatformApi, ServiceAnswer } from '../platform/platform-api';
import { TaskStory, taskTimeline } from '../platform/task-timeline';
import { taskWaterfall } from '../platform/task-waterfall';
import { waterfallSvg } from '../html/waterfall-svg';
import { SessionRequest } from '../session/console-session.guard';

interface TaskSummary {
  taskId: string;
  userId: string;
  reportType: string;
  state: string;
  attempts: number;
  createdAt: string;
  reason: string | null;
  errorCode: string | null;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim().slice(0, 128) : '');

/** The search form's fields as the tasks service's query (it checks them; an empty field is no filter). */
export function taskFilter(fields: Record<'userId' | 'state' | 'reportType' | 'errorCode' | 'from' | 'before', string>): URLSearchParams {
  const params = new URLSearchParams({ userId: fields.userId || '*' });
  for (const name of ['state', 'reportType', 'errorCode'] as const) if (fields[name]) params.set(name, fields[name]);
  for (const [field, name] of [
    ['from', 'createdFrom'],
    ['before', 'createdBefore'],
  ] as const) {
    const at = new Date(fields[field]);
    if (fields[field] && !Number.isNaN(at.getTime())) params.set(name, at.toISOString());
  }
  return params;
}

@Controller('tasks')
export class TasksController {
  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {}

  /**
   * Search by id, user, state, report type, error code and creation window, with counts per state and
   * pages of 50; a task id goes straight to its page. An admin may cancel what the filter matches.
   */
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  async search(@Req() req: SessionRequest, @Query() query: Record<string, unknown>): Promise<string> {
    const session = req.session!;
    const [taskId, userId, state, reportType, errorCode, from, before] = ['taskId', 'userId', 'state', 'reportType', 'errorCode', 'from', 'before'].map((k) =>
      text(query[k]),
    );
    if (taskId) return this.task(req, taskId);
    const offset = Math.max(0, Math.min(1_000_000, Math.floor(Number(text(query.offset)) || 0)));
    const form = html`<form class="search" method="get" action="/tasks">
<input name="taskId" placeholder="task id" size="38"><input name="userId" placeholder="user (empty: everyone)" value="${userId}">
<select name="state"><option value="">any state</option>${taskStates.map((s) => html`<option ${s === state ? html`selected` : ''}>${s}</option>`)}</select>
<input name="reportType" placeholder="report type" value="${reportType}"><input name="errorCode" placeholder="error code" value="${errorCode}">
<input name="from" type="datetime-local" value="${from}"><input name="before" type="datetime-local" value="${before}"><button>Search</button></form>`;
    const filter = taskFilter({ userId, state, reportType, errorCode, from, before });
    const api = new PlatformApi(this.config.serviceUrls, session.token);
    const [found, counts] = await Promise.all([
      api.get<{ items: TaskSummary[]; nextOffset: number | null }>('tasks', `/tasks?${filter}&limit=50&offset=${offset}`),
      api.get<{ byState: Record<string, number>; total: number }>('tasks', `/tasks/counts?${filter}`),
    ]);
    const shown = new URLSearchParams({ userId, state, reportType, errorCode, from, before });
    const byState = html`<p id="state-counts">${counts.total} task(s): ${taskStates.map(
      (s) => html`<a href="/tasks?${new URLSearchParams([...shown, ['state', s]])}" class="tag">${s} <b data-state="${s}">${counts.byState[s]}</b></a> `,
    )}</p>`;
    const rows = found.items.map(
      (t) =>
        html`<tr><td><a href="/tasks/${t.taskId}">${t.taskId}</a></td><td><a href="/quota/${encodeURIComponent(t.userId)}">${t.userId}</a></td><td>${t.reportType}</td><td>${t.state}</td><td>${t.errorCode}</td><td>${t.attempts}</td><td>${when(t.createdAt)}</td><td>${t.reason}</td></tr>`,
    );
    const next =
      found.nextOffset === null
        ? ''
        : html`<a id="next-page" href="/tasks?${new URLSearchParams([...shown, ['offset', String(found.nextOffset)]])}">next page</a>`;
    const bulk = isAdmin(session.caller)
      ? html`<form method="post" action="/bulk/cancel" class="inline">${csrfField(session)}<input type="hidden" name="filter" value="${filter.toString()}"><button id="bulk-cancel">Cancel the open tasks matching this filter…</button></form>`
      : '';
    const headers = ['task', 'user', 'report', 'state', 'error code', 'attempts', 'created', 'reason'];
    return page('Tasks', html`${form}${byState}${bulk}${table(headers, rows)}${next}`, session);
  }

  /** One task across the four services, in one timeline, read with the operator's own token. */
  @Get(':taskId')
  @Header('content-type', 'text/html; charset=utf-8')
  async task(@Req() req: SessionRequest, @Param('taskId') taskId: string): Promise<string> {
    const session = req.session!;
    const api = new PlatformApi(this.config.serviceUrls, session.token);
    const id = encodeURIComponent(taskId);
    const task = await api.get<TaskStory['task'] & { input: unknown; reportType: string; reason: string | null; reportRef: string | null }>(
      'tasks',
      `/tasks/${id}`,
    );
    const user = encodeURIComponent(task.userId);
    const [generation, ledger, notifications] = await Promise.all([
      api.find<TaskStory['generation']>('generation', `/generations/${id}`),
      api.get<{ items: TaskStory['ledger'] }>('quota', `/quota/${user}/ledger?taskId=${id}`),
      api.get<{ items: TaskStory['notifications'] }>('notification', `/notifications?userId=${user}&taskId=${id}`),
    ]);
    const story: TaskStory = { task, generation, ledger: ledger.items, notifications: notifications.items };
    const rows = taskTimeline(story).map(
      (r) =>
        html`<tr class="source-${r.source}"><td>${when(r.at)}</td><td><span class="tag">${r.source}</span></td><td>${r.what}</td><td>${r.detail}</td></tr>`,
    );
    const trace = `${this.config.tracesUrl}/zipkin/?annotationQuery=${encodeURIComponent(`taskId=${task.taskId}`)}&lookback=604800000`;
    const facts = html`<table><tbody>
<tr><th>user</th><td><a href="/quota/${task.userId}">${task.userId}</a></td></tr><tr><th>state</th><td id="task-state">${task.state}</td></tr>
<tr><th>report type</th><td>${task.reportType}</td></tr><tr><th>input</th><td><pre id="task-input">${JSON.stringify(task.input, null, 2)}</pre></td></tr>
<tr><th>reason</th><td>${task.reason}</td></tr><tr><th>report</th><td>${task.reportRef}</td></tr>
<tr><th>trace</th><td><a href="${trace}">in Zipkin</a></td></tr></tbody></table>`;
    // The form's own Idempotency-Key: sent twice (a double click, a reload), it cancels once.
    const cancel =
      isAdmin(session.caller) && !terminalStates.has(task.state as TaskState)
        ? html`<form method="post" action="/tasks/${task.taskId}/cancel" class="inline">${csrfField(session)}<input type="hidden" name="key" value="${randomUUID()}"><button id="cancel-task">Cancel this task</button></form>`
        : '';
    return page(
      `Task ${task.taskId}`,
      html`${facts}${cancel}<h2>Waterfall</h2>${waterfallSvg(taskWaterfall(story))}<h2>Timeline</h2>${table(['when', 'service', 'what', 'detail'], rows)}`,
      session,
    );
  }

  /** Admin only: the tasks service decides; a task that had already ended keeps its outcome (409), shown on its page. */
  @Post(':taskId/cancel')
  async cancel(@Req() req: SessionRequest, @Param('taskId') taskId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const session = req.session!;
    if (!isAdmin(session.caller)) throw new ForbiddenException('only an admin cancels tasks from the console');
    const id = encodeURIComponent(taskId);
    const key = typeof body.key === 'string' && body.key ? body.key : randomUUID();
    try {
      await new PlatformApi(this.config.serviceUrls, session.token).post('tasks', `/tasks/${id}/cancel`, undefined, { 'idempotency-key': `console-${key}` });
    } catch (error) {
      if (!(error instanceof ServiceAnswer && error.getStatus() === HttpStatus.CONFLICT)) throw error;
    }
    res.redirect(303, `/tasks/${id}`);
  }
}
