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
import { SessionRequest } from '../session/console-session.guard';

interface TaskSummary {
  taskId: string;
  userId: string;
  reportType: string;
  state: string;
  attempts: number;
  createdAt: string;
  reason: string | null;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim().slice(0, 128) : '');

@Controller('tasks')
export class TasksController {
  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {}

  /** Search by id, user, state and creation window; a task id goes straight to its page. */
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  async search(@Req() req: SessionRequest, @Query() query: Record<string, unknown>): Promise<string> {
    const session = req.session!;
    const [taskId, userId, state, from, before] = ['taskId', 'userId', 'state', 'from', 'before'].map((k) => text(query[k]));
    if (taskId) return this.task(req, taskId);
    const form = html`<form class="search" method="get" action="/tasks">
<input name="taskId" placeholder="task id" size="38"><input name="userId" placeholder="user (empty: everyone)" value="${userId}">
<select name="state"><option value="">any state</option>${taskStates.map((s) => html`<option ${s === state ? html`selected` : ''}>${s}</option>`)}</select>
<input name="from" type="datetime-local" value="${from}"><input name="before" type="datetime-local" value="${before}"><button>Search</button></form>`;
    const params = new URLSearchParams({ userId: userId || '*', limit: '100' });
    if (state) params.set('state', state);
    if (from) params.set('createdFrom', new Date(from).toISOString());
    if (before) params.set('createdBefore', new Date(before).toISOString());
    const found = await new PlatformApi(this.config.serviceUrls, session.token).get<{ items: TaskSummary[] }>('tasks', `/tasks?${params}`);
    const rows = found.items.map(
      (t) =>
        html`<tr><td><a href="/tasks/${t.taskId}">${t.taskId}</a></td><td><a href="/quota/${encodeURIComponent(t.userId)}">${t.userId}</a></td><td>${t.reportType}</td><td>${t.state}</td><td>${t.attempts}</td><td>${when(t.createdAt)}</td><td>${t.reason}</td></tr>`,
    );
    return page('Tasks', html`${form}${table(['task', 'user', 'report', 'state', 'attempts', 'created', 'reason'], rows)}`, session);
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
    const rows = taskTimeline({ task, generation, ledger: ledger.items, notifications: notifications.items }).map(
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
    return page(`Task ${task.taskId}`, html`${facts}${cancel}<h2>Timeline</h2>${table(['when', 'service', 'what', 'detail'], rows)}`, session);
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
