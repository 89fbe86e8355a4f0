import type { Bar } from '../platform/task-waterfall';
import { html, Html } from './html';

const labelWidth = 300;
const plotWidth = 620;
const rowHeight = 20;

const duration = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);

/**
 * A task's waterfall as an SVG drawn on the server: one row a bar, on one time axis from the task's
 * first step to its last; working solid, waiting hatched (classes in console.css: the content policy
 * allows no inline style, and SVG's own attributes need none).
 */
export function waterfallSvg(bars: Bar[]): Html {
  if (bars.length === 0) return html`<p class="empty">nothing to draw yet</p>`;
  const start = Math.min(...bars.map((b) => b.from));
  const span = Math.max(1, Math.max(...bars.map((b) => b.to)) - start);
  const x = (at: number) => labelWidth + ((at - start) / span) * plotWidth;
  const rows = bars.map((bar, i) => {
    const y = i * rowHeight;
    const width = Math.max(2, x(bar.to) - x(bar.from));
    return html`<g data-bar="${i}" data-kind="${bar.kind}" data-lane="${bar.lane}"><title>${bar.lane}: ${bar.label}, ${duration(bar.to - bar.from)}</title>
<text x="4" y="${y + 14}" class="wf-label">${bar.lane} · ${bar.label}</text>
<rect x="${x(bar.from).toFixed(1)}" y="${y + 3}" width="${width.toFixed(1)}" height="${rowHeight - 6}" class="wf-${bar.kind} lane-${bar.lane}"></rect>
<text x="${Math.min(x(bar.to) + 4, labelWidth + plotWidth - 60).toFixed(1)}" y="${y + 14}" class="wf-time">${duration(bar.to - bar.from)}</text></g>`;
  });
  const height = bars.length * rowHeight + 20;
  const axis = html`<text x="${labelWidth}" y="${height - 4}" class="wf-time">0</text><text x="${labelWidth + plotWidth - 60}" y="${height - 4}" class="wf-time">${duration(span)}</text>`;
  return html`<svg class="waterfall" width="${labelWidth + plotWidth + 20}" height="${height}" role="img" aria-label="the task's steps on one time axis">${rows}${axis}</svg>
<p class="empty">Solid: working (a model attempt, a webhook delivery). Hatched: waiting — in the outbox and a topic, for a free slot, for a retry's backoff.</p>`;
}
