import { Body, Controller, ForbiddenException, Get, Header, Inject, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { isAdmin } from '@app/auth';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html } from '../html/html';
import { csrfField, page, table, when } from '../html/layout';
import { BulkCancel, bulkCancelLimit, BulkCancels } from '../platform/bulk-cancels';
import { PlatformApi } from '../platform/platform-api';
import { SessionRequest } from '../session/console-session.guard';

/** A filter as the search page sends it: the tasks service's own query, only its known fields. */
function filterOf(body: Record<string, unknown>): URLSearchParams {
  const sent = new URLSearchParams(typeof body.filter === 'string' ? body.filter.slice(0, 2048) : '');
  const kept = new URLSearchParams();
  for (const name of ['userId', 'state', 'reportType', 'errorCode', 'createdFrom', 'createdBefore']) {
    const value = sent.get(name);
    if (value) kept.set(name, value);
  }
  if (!kept.has('userId')) kept.set('userId', '*');
  return kept;
}

/** Cancel by filter: admin only (CSRF-checked like every form), a dry run first, then a throttled run with its progress. */
@Controller('bulk')
export class BulkCancelController {
  constructor(
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
    private readonly cancels: BulkCancels,
  ) {}

  /** The dry run: how many open tasks, and which, the filter matches now; nothing is cancelled. */
  @Post('cancel')
  @Header('content-type', 'text/html; charset=utf-8')
  async plan(@Req() req: SessionRequest, @Body() body: Record<string, unknown>): Promise<string> {
    const session = this.adminOnly(req);
    const plan = await this.cancels.plan(new PlatformApi(this.config.serviceUrls, session.token), filterOf(body), session.caller.userId);
    const more = plan.truncated
      ? html`<p>More matched: only the newest are taken (at most ${bulkCancelLimit} open tasks, among the newest 10 000 the filter matches); run again for the rest.</p>`
      : '';
    const run = html`<form method="post" action="/bulk/${plan.id}/run">${csrfField(session)}
<label>rate <input name="rate" type="number" min="1" max="100" value="${this.config.defaultRedriveRate}" size="4">/s</label>
<button id="run-bulk-cancel" ${plan.taskIds.length === 0 ? html`disabled` : ''}>Cancel these ${plan.taskIds.length} task(s)</button></form>`;
    const rows = plan.taskIds.map((id) => html`<tr><td><a href="/tasks/${id}">${id}</a></td></tr>`);
    const summary = html`<p>Dry run: <b id="planned-count">${plan.taskIds.length}</b> open task(s) match <code>${plan.filter}</code>.</p>`;
    return page('Bulk cancel: dry run', html`${summary}${more}${run}${table(['task'], rows)}`, session);
  }

  @Post(':id/run')
  run(@Req() req: SessionRequest, @Param('id') id: string, @Body() body: Record<string, unknown>, @Res() res: Response): void {
    const session = this.adminOnly(req);
    const rate = Math.min(100, Math.max(1, Math.floor(Number(body.rate)) || this.config.defaultRedriveRate));
    if (!this.cancels.start(id, new PlatformApi(this.config.serviceUrls, session.token), session.caller.userId, rate))
      throw new NotFoundException(`no bulk cancel ${id}`);
    res.redirect(303, `/bulk/${encodeURIComponent(id)}`);
  }

  /** A run's progress, for anyone signed in; refreshed until it ends. */
  @Get(':id')
  @Header('content-type', 'text/html; charset=utf-8')
  progress(@Req() req: SessionRequest, @Param('id') id: string): string {
    const run: BulkCancel | undefined = this.cancels.find(id);
    if (!run) throw new NotFoundException(`no bulk cancel ${id}`);
    const state = !run.startedAt ? 'planned, not run' : run.finished ? 'finished' : 'running';
    const refresh = run.startedAt && !run.finished ? html`<meta http-equiv="refresh" content="2">` : '';
    const facts = table(
      ['by', 'filter', 'started', 'state', 'done', 'cancelled', 'had ended', 'failed'],
      [
        html`<tr><td>${run.by}</td><td><code>${run.filter}</code></td><td>${when(run.startedAt)}</td><td id="bulk-state">${state}</td><td id="bulk-done">${run.done} of ${run.taskIds.length}</td><td id="bulk-cancelled">${run.cancelled}</td><td id="bulk-ended">${run.alreadyEnded}</td><td id="bulk-failed">${run.failed.length}</td></tr>`,
      ],
    );
    const failures = run.failed.map((f) => html`<li>${f}</li>`);
    return page('Bulk cancel', html`${refresh}${facts}<ul>${failures}</ul>`, req.session!);
  }

  private adminOnly(req: SessionRequest) {
    const session = req.session!;
    if (!isAdmin(session.caller)) throw new ForbiddenException('only an admin cancels tasks from the console');
    return session;
  }
}
