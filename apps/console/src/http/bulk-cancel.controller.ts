import { Body, Controller, ForbiddenException, Get, Header, Inject, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { isAdmin } from '@app/auth';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html } from '../html/html';
import { csrfField, page, table, when } from '../html/layout';
import { BulkCancel, bulkCancelLimit, bulkCancels } from '../platform/bulk-cancels';
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

/** Cancel by filter: admin only (CSRF-checked like every form), a dry run first, then a throttled run with its progress, all kept by the tasks service. */
@Controller('bulk')
export class BulkCancelController {
  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {}

  /** The dry run: how many open tasks, and which, the filter matches now; nothing is cancelled. */
  @Post('cancel')
  @Header('content-type', 'text/html; charset=utf-8')
  async plan(@Req() req: SessionRequest, @Body() body: Record<string, unknown>): Promise<string> {
    const session = this.adminOnly(req);
    const plan = await bulkCancels.plan(this.api(req), filterOf(body));
    const more = plan.truncated ? html`<p>More matched: only the newest are taken (at most ${bulkCancelLimit} open tasks); run again for the rest.</p>` : '';
    const run = html`<form method="post" action="/bulk/${plan.runId}/run">${csrfField(session)}
<label>rate <input name="rate" type="number" min="1" max="100" value="${this.config.defaultRedriveRate}" size="4">/s</label>
<button id="run-bulk-cancel" ${plan.items.length === 0 ? html`disabled` : ''}>Cancel these ${plan.items.length} task(s)</button></form>`;
    const rows = plan.items.map((id) => html`<tr><td><a href="/tasks/${id}">${id}</a></td></tr>`);
    const summary = html`<p>Dry run: <b id="planned-count">${plan.items.length}</b> open task(s) match <code>${plan.filter}</code>.</p>`;
    return page('Bulk cancel: dry run', html`${summary}${more}${run}${table(['task'], rows)}`, session);
  }

  @Post(':id/run')
  async run(@Req() req: SessionRequest, @Param('id') id: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    this.adminOnly(req);
    const rate = Math.min(100, Math.max(1, Math.floor(Number(body.rate)) || this.config.defaultRedriveRate));
    await bulkCancels.start(this.api(req), id, rate);
    res.redirect(303, `/bulk/${encodeURIComponent(id)}`);
  }

  /** A run's progress and audit lines, for any operator, from any console; refreshed until it ends. */
  @Get(':id')
  @Header('content-type', 'text/html; charset=utf-8')
  async progress(@Req() req: SessionRequest, @Param('id') id: string): Promise<string> {
    const run: BulkCancel | undefined = await bulkCancels.find(this.api(req), id);
    if (!run) throw new NotFoundException(`no bulk cancel ${id}`);
    const state = run.state === 'planned' ? 'planned, not run' : run.state;
    const refresh = run.state === 'running' ? html`<meta http-equiv="refresh" content="2">` : '';
    const facts = table(
      ['by', 'filter', 'started', 'state', 'done', 'cancelled', 'had ended', 'failed'],
      [
        html`<tr><td>${run.startedBy ?? run.requestedBy}</td><td><code>${run.filter}</code></td><td>${when(run.startedAt)}</td><td id="bulk-state">${state}</td><td id="bulk-done">${run.done} of ${run.items.length}</td><td id="bulk-cancelled">${run.outcomes['cancelled'] ?? 0}</td><td id="bulk-ended">${run.outcomes['had ended'] ?? 0}</td><td id="bulk-failed">${run.failures.length}</td></tr>`,
      ],
    );
    const failures = run.failures.map((f) => html`<li>${f}</li>`);
    const audit = table(
      ['at', 'what', 'by', ''],
      run.audit.map((a) => html`<tr data-audit="${a.what}"><td>${when(a.at)}</td><td>${a.what}</td><td>${a.by}</td><td>${a.line}</td></tr>`),
    );
    return page('Bulk cancel', html`${refresh}${facts}<ul>${failures}</ul><h2>Audit</h2>${audit}`, req.session!);
  }

  private api(req: SessionRequest): PlatformApi {
    return new PlatformApi(this.config.serviceUrls, req.session!.token);
  }

  private adminOnly(req: SessionRequest) {
    const session = req.session!;
    if (!isAdmin(session.caller)) throw new ForbiddenException('only an admin cancels tasks from the console');
    return session;
  }
}
