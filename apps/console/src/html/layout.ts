import { isAdmin } from '@app/auth';
import type { Session } from '../session/session';
import { html, Html } from './html';

const sections = [
  { href: '/', label: 'Overview' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/dead-letters', label: 'Dead letters' },
  { href: '/quota', label: 'Quota' },
  { href: '/shares', label: 'Shares' },
];

/** uPlot and the script that draws the charts with it: only on the pages that have charts. */
const chartAssets = html`<link rel="stylesheet" href="/assets/uplot.css"><script src="/assets/uplot.js" defer></script><script src="/assets/charts.js" defer></script>`;

/** A whole page: the navigation, who is signed in (and as what), and the content; `charts` loads what draws them. */
export function page(title: string, content: Html, session?: Session, { charts = false } = {}): string {
  const role = session ? (isAdmin(session.caller) ? 'admin' : session.caller.roles.has('viewer') ? 'viewer' : 'user') : '';
  const nav = session
    ? html`<nav>${sections.map((s) => html`<a href="${s.href}">${s.label}</a>`)}
        <span class="who">${session.caller.userId} (${role})</span>
        <form method="post" action="/sign-out" class="inline">${csrfField(session)}<button>Sign out</button></form></nav>`
    : html``;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · task platform console</title>
<link rel="stylesheet" href="/assets/console.css"><script src="/assets/console.js" defer></script>${charts ? chartAssets : ''}</head>
<body>${nav}<main><h1>${title}</h1>${content}</main></body></html>`.markup;
}

export function csrfField(session: Session): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
}

export function table(headers: string[], rows: Html[]): Html {
  if (rows.length === 0) return html`<p class="empty">nothing here</p>`;
  return html`<table><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`;
}

export function when(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toISOString().replace('T', ' ').replace('Z', '');
}
