import { Body, Controller, ForbiddenException, Get, Header, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { isAdmin } from '@app/auth';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html } from '../html/html';
import { csrfField, page, table, when } from '../html/layout';
import { PlatformApi } from '../platform/platform-api';
import { SessionRequest } from '../session/console-session.guard';

export interface Share {
  userId: string;
  maxRunning: number;
  set: boolean;
  setBy: string | null;
  running: number;
  due: number;
}

interface ShareChange {
  maxRunningBefore: number | null;
  maxRunning: number | null;
  setBy: string;
  at: string;
}

/** The busiest users as a table, each linked to their share: on the overview and here. */
export const busiestTable = (items: Share[]) =>
  table(
    ['user', 'running', 'due', 'share'],
    items.map(
      (s) =>
        html`<tr><td><a href="/shares/${encodeURIComponent(s.userId)}">${s.userId}</a></td><td>${s.running}</td><td>${s.due}</td><td>${s.maxRunning}${s.set ? ' (set)' : ''}</td></tr>`,
    ),
  );

/** Users' shares of generation's slots: who holds them now, and, for an admin, a user's share set or reset. */
@Controller('shares')
export class SharesController {
  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  async busiest(@Req() req: SessionRequest, @Res() res: Response, @Query('userId') userId: unknown): Promise<void> {
    if (typeof userId === 'string' && userId.trim()) return res.redirect(303, `/shares/${encodeURIComponent(userId.trim())}`);
    const api = new PlatformApi(this.config.serviceUrls, req.session!.token);
    const { items } = await api.get<{ items: Share[] }>('generation', '/users/busiest?limit=25');
    const form = html`<form class="search" method="get" action="/shares"><input name="userId" placeholder="user id" required><button>Show share</button></form>`;
    res.type('html').send(page('Shares', html`${form}<h2>Busiest users</h2>${busiestTable(items)}`, req.session));
  }

  /** A user's share, what they run and have due, its changes, and the form to change it (admin). */
  @Get(':userId')
  @Header('content-type', 'text/html; charset=utf-8')
  async share(@Req() req: SessionRequest, @Param('userId') userId: string): Promise<string> {
    const session = req.session!;
    const api = new PlatformApi(this.config.serviceUrls, session.token);
    const user = encodeURIComponent(userId);
    const [share, changes] = await Promise.all([
      api.get<Share>('generation', `/users/${user}/share`),
      api.get<{ items: ShareChange[] }>('generation', `/users/${user}/share/changes`),
    ]);
    const named = (n: number | null) => (n === null ? 'default' : String(n));
    const rows = changes.items.map(
      (c) => html`<tr><td>${when(c.at)}</td><td>${named(c.maxRunningBefore)}</td><td>${named(c.maxRunning)}</td><td>${c.setBy}</td></tr>`,
    );
    const change = isAdmin(session.caller)
      ? html`<h2>Change</h2><form method="post" action="/shares/${user}">${csrfField(session)}
<label>attempts at once <input name="maxRunning" type="number" min="1" max="1000" value="${share.maxRunning}" required></label><button>Set</button>
<button name="reset" value="1" formnovalidate>Default again</button></form>`
      : html``;
    const content = html`<p>share <b id="share">${share.maxRunning}</b> ${share.set ? `(set by ${share.setBy})` : '(the default)'}; running <b>${share.running}</b>, due <b>${share.due}</b></p>
${change}<h2>Changes</h2>${table(['when', 'before', 'after', 'by'], rows)}`;
    return page(`Share of ${userId}`, content, session);
  }

  /** Admin only: sets the share, or resets it to the default; generation records who did. */
  @Post(':userId')
  async set(@Req() req: SessionRequest, @Param('userId') userId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const session = req.session!;
    if (!isAdmin(session.caller)) throw new ForbiddenException('only an admin sets a user’s share');
    const api = new PlatformApi(this.config.serviceUrls, session.token);
    const user = encodeURIComponent(userId);
    if (body.reset) await api.delete('generation', `/users/${user}/share`);
    else await api.put('generation', `/users/${user}/share`, { maxRunning: Number(body.maxRunning) });
    res.redirect(303, `/shares/${user}`);
  }
}
