import { randomUUID } from 'node:crypto';
import { Body, Controller, ForbiddenException, Get, Header, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { isAdmin } from '@app/auth';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html } from '../html/html';
import { csrfField, page, table, when } from '../html/layout';
import { PlatformApi } from '../platform/platform-api';
import { SessionRequest } from '../session/console-session.guard';

interface Ledger {
  items: Array<{ kind: string; amount: number; taskId: string | null; at: string }>;
}

@Controller('quota')
export class QuotaController {
  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  find(@Req() req: SessionRequest, @Res() res: Response, @Query('userId') userId: unknown): void {
    if (typeof userId === 'string' && userId.trim()) return res.redirect(303, `/quota/${encodeURIComponent(userId.trim())}`);
    const form = html`<form class="search" method="get" action="/quota"><input name="userId" placeholder="user id" required><button>Show ledger</button></form>`;
    res.type('html').send(page('Quota', form, req.session));
  }

  /** A user's balance and ledger (grants, debits, refunds, rejections), and a grant form for an admin. */
  @Get(':userId')
  @Header('content-type', 'text/html; charset=utf-8')
  async ledger(@Req() req: SessionRequest, @Param('userId') userId: string): Promise<string> {
    const session = req.session!;
    const api = new PlatformApi(this.config.serviceUrls, session.token);
    const user = encodeURIComponent(userId);
    const [summary, ledger] = await Promise.all([
      api.get<{ balance: number; debited: number; refunded: number }>('quota', `/quota/${user}`),
      api.get<Ledger>('quota', `/quota/${user}/ledger?limit=500`),
    ]);
    const rows = ledger.items.map(
      (l) =>
        html`<tr><td>${when(l.at)}</td><td>${l.kind}</td><td>${l.amount}</td><td>${l.taskId ? html`<a href="/tasks/${l.taskId}">${l.taskId}</a>` : ''}</td></tr>`,
    );
    const grant = isAdmin(session.caller)
      ? html`<h2>Grant</h2><form method="post" action="/quota/${user}/grants">${csrfField(session)}
<label>units <input name="amount" type="number" min="1" max="1000000" required></label><button>Grant</button></form>`
      : html``;
    const content = html`<p>balance <b id="balance">${summary.balance}</b>, debited ${summary.debited}, refunded ${summary.refunded}</p>${grant}
<h2>Ledger</h2>${table(['when', 'kind', 'amount', 'task'], rows)}`;
    return page(`Quota of ${userId}`, content, session);
  }

  /** Admin only; one grant per submitted form (its own Idempotency-Key). */
  @Post(':userId/grants')
  async grant(@Req() req: SessionRequest, @Param('userId') userId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const session = req.session!;
    if (!isAdmin(session.caller)) throw new ForbiddenException('only an admin grants quota');
    const api = new PlatformApi(this.config.serviceUrls, session.token);
    const user = encodeURIComponent(userId);
    await api.post('quota', `/quota/${user}/grants`, { amount: Number(body.amount) }, { 'idempotency-key': `console-${randomUUID()}` });
    res.redirect(303, `/quota/${user}`);
  }
}
