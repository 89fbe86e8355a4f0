import {
  BadRequestException,
  Body,
  Controller,
  ForbiddenException,
  Get,
  Header,
  Inject,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';
import { Caller, isAdmin, masked } from '@app/auth';
import { ServiceName, serviceNames } from '@app/config';
import { parseCursor, PageCursor, redriveLimit } from '@app/dead-letters';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html, Html } from '../html/html';
import { csrfField, page, table, when } from '../html/layout';
import { DeadLetterDesk } from '../platform/dead-letter-desk';
import { PlatformApi } from '../platform/platform-api';
import { SessionRequest } from '../session/console-session.guard';

interface ParkedRow {
  id: string;
  eventId: string;
  eventType: string;
  key: string;
  parkedAt: string;
  reason: string;
  heldBack: number;
}

/** A page cursor from the query, or none; anything else is refused rather than read as the newest page. */
function cursorOf(value: unknown): PageCursor | undefined {
  if (value === undefined || value === '') return undefined;
  const cursor = typeof value === 'string' ? parseCursor(value) : undefined;
  if (!cursor) throw new BadRequestException('before must be a page cursor: partition:offset pairs, comma-separated');
  return cursor;
}

function requestIdOf(value: string): string {
  if (!/^[0-9a-f-]{36}$/.test(value)) throw new NotFoundException('no such re-drive');
  return value;
}

function serviceOf(value: string): ServiceName {
  if (!(serviceNames as readonly string[]).includes(value)) throw new NotFoundException(`no consumer "${value}"`);
  return value as ServiceName;
}

/** What a viewer may not see of an event: the user's own content. */
function maskedFor(caller: Caller, event: Record<string, unknown>): Record<string, unknown> {
  if (isAdmin(caller)) return event;
  return Object.fromEntries(Object.entries(event).map(([k, v]) => [k, ['input', 'url', 'reportRef'].includes(k) ? masked : v]));
}

function redriveForm(req: SessionRequest, service: ServiceName, fields: Html, label: string, rate: number): Html {
  if (!isAdmin(req.session!.caller)) return html``;
  return html`<form method="post" action="/dead-letters/${service}/redrive" class="inline">${csrfField(req.session!)}${fields}
<label><input type="checkbox" name="dryRun" value="on" checked> dry run</label>
<label>rate <input name="rate" type="number" min="1" max="1000" value="${rate}" size="4">/s</label><button>${label}</button></form>`;
}

@Controller('dead-letters')
export class DeadLettersController {
  constructor(
    private readonly desk: DeadLetterDesk,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  /** Grouped by consumer and error code; each group re-driven at once (admin); the history of re-drives. */
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  async overview(@Req() req: SessionRequest): Promise<string> {
    const api = new PlatformApi(this.config.serviceUrls, req.session!.token);
    const [{ groups, read }, history, parked] = await Promise.all([
      this.desk.groups(),
      this.desk.history(),
      Promise.all(serviceNames.map(async (service) => ({ service, rows: (await api.get<{ items: ParkedRow[] }>(service, '/outbox/parked')).items }))),
    ]);
    const rows = groups.map(
      (g) =>
        html`<tr data-group="${g.service}:${g.errorCode}"><td>${g.service}</td><td><a href="/dead-letters/${g.service}?error=${encodeURIComponent(g.errorCode)}">${g.errorCode}</a></td>
<td>${g.count}</td><td>${g.redriven}</td><td>${g.parked}</td><td>${when(g.firstSeen)}</td><td>${when(g.lastSeen)}</td>
<td>${redriveForm(req, g.service, html`<input type="hidden" name="error" value="${g.errorCode}">`, 'Re-drive group', this.config.defaultRedriveRate)}</td></tr>`,
    );
    const parkedRows = parked.flatMap(({ service, rows }) =>
      rows.map(
        (r) =>
          html`<tr><td>${service}</td><td>${r.id}</td><td>${r.eventType} ${r.eventId}</td><td>${r.key}</td><td>${when(r.parkedAt)}</td><td>${r.reason}</td><td>${r.heldBack}</td></tr>`,
      ),
    );
    const log = history
      .slice(0, 100)
      .map(
        (h) =>
          html`<tr><td>${when(h.at)}</td><td>${h.by}</td><td>${h.service}</td><td><a href="/dead-letters/${h.service}/${h.letter}">${h.letter}</a></td></tr>`,
      );
    const partial = read.filter((r) => r.grouped < r.total);
    const coverage = partial.length
      ? html`<p id="grouped-over">Grouped over each consumer's newest letters: ${partial.map((r) => `${r.service} ${r.grouped} of ${r.total}`).join(', ')}.</p>`
      : html``;
    const content = html`${coverage}${table(['consumer', 'error', 'letters', 're-driven', 'parked', 'first seen', 'last seen', ''], rows)}
<h2>Re-drive history</h2>${table(['when', 'by', 'consumer', 'dead letter'], log)}
<h2>Parked outbox rows</h2><p>Events a relay could not publish because the broker refused their size; <code>npm run dlq -- release-parked</code> gives them back once the limit is raised.</p>
${table(['service', 'row', 'event', 'key', 'parked at', 'reason', 'held back behind it'], parkedRows)}`;
    return page('Dead letters', content, req.session);
  }

  @Get('redrives/:service/:id/progress')
  async progress(@Param('service') name: string, @Param('id') id: string) {
    return this.desk.run(serviceOf(name), requestIdOf(id));
  }

  /** A re-drive as its service logs it, from any console; until the service has taken it, that it waits. */
  @Get('redrives/:service/:id')
  @Header('content-type', 'text/html; charset=utf-8')
  async redriveRun(@Req() req: SessionRequest, @Param('service') name: string, @Param('id') id: string): Promise<string> {
    const service = serviceOf(name);
    const run = await this.desk.run(service, requestIdOf(id));
    const progressUrl = `/dead-letters/redrives/${service}/${run.id}/progress`;
    if (!run.taken) {
      const content = html`<p id="redrive-progress" data-redrive="${progressUrl}">asked; waiting for ${service} to take the request (it does whenever it runs)</p>`;
      return page('Re-drive', content, req.session);
    }
    const failed = run.failedAgain > 0 ? ` (${run.failedAgain} failed again and are parked)` : '';
    const status = `${run.done} of ${run.total} re-driven${failed}${run.finished ? ' — finished' : ''}`;
    const content = html`<p>${run.by} asked ${service} to re-drive ${run.what}; it took the request at ${when(run.startedAt)}, handles each letter again and logs it.</p>
<p id="redrive-progress" data-redrive="${progressUrl}">${status}</p><p><a href="/dead-letters">back to the dead letters</a></p>`;
    return page('Re-drive', content, req.session);
  }

  /** A page of one consumer's dead letters, newest first, optionally of one error code; `before` pages on to older ones. */
  @Get(':service')
  @Header('content-type', 'text/html; charset=utf-8')
  async list(@Req() req: SessionRequest, @Param('service') name: string, @Query('error') error: unknown, @Query('before') before: unknown): Promise<string> {
    const service = serviceOf(name);
    const shown = await this.desk.letters(service, { before: cursorOf(before) });
    const letters = shown.letters.filter((l) => typeof error !== 'string' || !error || l.errorCode === error);
    const rows = letters.map(
      (l) =>
        html`<tr><td><a href="/dead-letters/${service}/${l.id}">${l.id}</a></td><td>${l.originalTopic}</td><td>${l.errorCode}</td><td>${l.errorMessage}</td>
<td>${when(l.failedAt)}</td><td>${l.valueBytes}</td><td>${l.redrivenBy ? `${l.redrivenBy.by} at ${when(l.redrivenBy.at)}` : ''}${l.parked ? ' (parked: failed again)' : ''}</td></tr>`,
    );
    const errorQuery = typeof error === 'string' && error ? `&error=${encodeURIComponent(error)}` : '';
    const older = shown.older
      ? html`<p><a id="older-letters" href="/dead-letters/${service}?before=${shown.older}${errorQuery}">older letters</a></p>`
      : html``;
    const content = html`<p id="letters-shown">${shown.letters.length} of ${shown.total} letter(s), newest first${errorQuery ? `; ${letters.length} of them ${error as string}` : ''}.</p>
${table(['letter', 'from topic', 'error', 'message', 'failed at', 'bytes', 're-driven'], rows)}${older}`;
    return page(`Dead letters of ${service}`, content, req.session);
  }

  /** One letter: its headers and its value decoded (or why it could not be), and a re-drive of it alone. */
  @Get(':service/:id')
  @Header('content-type', 'text/html; charset=utf-8')
  async letter(@Req() req: SessionRequest, @Param('service') name: string, @Param('id') id: string): Promise<string> {
    const service = serviceOf(name);
    const letter = await this.desk.letter(service, id);
    if (!letter) throw new NotFoundException(`no dead letter ${id} of ${service}`);
    const decoded = await this.desk.decode(letter);
    const caller = req.session!.caller;
    const value = decoded.event
      ? html`<pre id="letter-value">${JSON.stringify(maskedFor(caller, decoded.event), null, 2)}</pre>`
      : html`<p class="error">cannot be decoded: ${decoded.problem}</p>${isAdmin(caller) ? html`<pre id="letter-value">${letter.value?.toString('utf8') ?? ''}</pre>` : ''}`;
    const headers = Object.entries(letter.headers).map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`);
    const redriven = letter.redrivenBy ? html`<p>re-driven by ${letter.redrivenBy.by} at ${when(letter.redrivenBy.at)}</p>` : html``;
    const form = redriveForm(req, service, html`<input type="hidden" name="id" value="${letter.id}">`, 'Re-drive this letter', this.config.defaultRedriveRate);
    const content = html`<p>from <b>${letter.originalTopic}</b>, key ${letter.key?.toString() ?? ''}: <b>${letter.errorCode}</b> ${letter.errorMessage}</p>${redriven}${form}
<h2>Value</h2>${value}<h2>Headers</h2><table><tbody>${headers}</tbody></table>`;
    return page(`Dead letter ${service} ${letter.id}`, content, req.session);
  }

  /** Admin only. A dry run lists what would go; a real re-drive starts and its progress page opens. */
  @Post(':service/redrive')
  async redrive(@Req() req: SessionRequest, @Param('service') name: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const session = req.session!;
    if (!isAdmin(session.caller)) throw new ForbiddenException('only an admin re-drives dead letters');
    const service = serviceOf(name);
    const rate = Math.min(1000, Math.max(1, Number(body.rate) || this.config.defaultRedriveRate));
    const ids = typeof body.id === 'string' && body.id ? [body.id] : undefined;
    const errorCode = typeof body.error === 'string' && body.error ? body.error : undefined;
    if (!ids && !errorCode) throw new ForbiddenException('name a letter or a group to re-drive');
    const dryRun = body.dryRun === 'on';
    const result = await this.desk.redrive({ service, by: session.caller.userId, ids, errorCode, rate, dryRun });
    if (!dryRun && result.requestId) {
      res.redirect(303, `/dead-letters/redrives/${service}/${result.requestId}`);
      return;
    }
    const would = result.redriven.map((l) => html`<tr><td>${l.id}</td><td>${l.originalTopic}</td><td>${l.errorCode}</td></tr>`);
    const skipped = result.skipped.map((s) => html`<tr><td>${s.letter.id}</td><td>${s.why}</td></tr>`);
    const again = redriveForm(
      req,
      service,
      html`${ids ? html`<input type="hidden" name="id" value="${ids[0]}">` : html`<input type="hidden" name="error" value="${errorCode}">`}`,
      'Re-drive',
      rate,
    );
    const content = html`<p id="dry-run">Dry run: ${result.redriven.length} letter(s) would be re-driven (handled again by ${service}) at ${rate}/s; ${result.skipped.length} skipped${result.left ? `; ${result.left} more left for another re-drive (one takes at most ${redriveLimit})` : ''}.</p>
${table(['letter', 'from topic', 'error'], would)}<h2>Skipped</h2>${table(['letter', 'why'], skipped)}<p>Untick “dry run” to re-drive:</p>${again}`;
    res.type('html').send(page(`Re-drive ${service}: dry run`, content, session));
  }
}
