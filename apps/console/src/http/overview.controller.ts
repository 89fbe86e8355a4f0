import { letGo } from '@app/failures';
import { Logger } from '@nestjs/common';
import { Controller, Get, Header, Inject, Query, Req } from '@nestjs/common';
import { serviceNames } from '@app/config';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';
import { html } from '../html/html';
import { page, table } from '../html/layout';
import { PlatformApi } from '../platform/platform-api';
import { ChartData, chartRangeOf, chartRanges, readCharts } from '../platform/platform-charts';
import { SessionRequest } from '../session/console-session.guard';
import { busiestTable, Share } from './shares.controller';

const overviewLog = new Logger('overview');

/** One chart: its series travel in an attribute (escaped like any value), drawn by /assets/charts.js. */
const figure = (chart: ChartData) =>
  html`<figure data-chart="${chart.id}" data-series="${JSON.stringify(chart)}"><figcaption>${chart.title} (${chart.unit})</figcaption><div class="plot"></div></figure>`;

const sum = (samples: Array<{ value: number }>) => samples.reduce((total, s) => total + s.value, 0);

/**
 * The platform at a glance: over time, charts from Prometheus (the last hour unless `range` says
 * 15m, 6h or 24h); now, from the services' own metrics: tasks by state, outbox, lag, dead letters.
 */
@Controller()
export class OverviewController {
  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  async overview(@Req() req: SessionRequest, @Query('range') asked?: string): Promise<string> {
    const range = chartRangeOf(asked);
    const charts = readCharts(this.config.prometheus, range);
    const api = new PlatformApi(this.config.serviceUrls, req.session!.token);
    const metrics = await Promise.all(serviceNames.map(async (service) => ({ service, samples: await api.metrics(service) })));
    const byName = (samples: (typeof metrics)[number]['samples'], name: string) => samples.filter((s) => s.name === name);
    const tasks = metrics.find((m) => m.service === 'tasks')!.samples;
    const states = byName(tasks, 'tasks_by_state').map((s) => html`<tr><td>${s.labels.state}</td><td>${s.value}</td></tr>`);
    const services = metrics.map(
      ({ service, samples }) => html`<tr><td>${service}</td><td>${samples.length ? 'up' : html`<span class="error">no answer</span>`}</td>
<td>${sum(byName(samples, 'outbox_pending'))}</td><td>${sum(byName(samples, 'outbox_oldest_age_seconds')).toFixed(1)} s</td>
<td>${sum(byName(samples, 'consumer_lag'))}</td><td>${sum(byName(samples, 'dlq_messages_total'))}</td></tr>`,
    );
    const pastDeadline = sum(byName(tasks, 'tasks_past_deadline'));
    const busiest = await api
      .get<{ items: Share[] }>('generation', '/users/busiest?limit=5')
      .catch(letGo('the busiest users left out of the overview: generation did not answer', overviewLog, { level: 'warn' }));
    const ranges = Object.keys(chartRanges).map((r) => html`<a href="/?range=${r}" class="${r === range ? 'on' : ''}">${r}</a>`);
    const content = html`<h2>Over the last ${range}</h2><p class="ranges">${ranges}</p><div class="charts">${(await charts).map(figure)}</div>
<h2>Tasks by state</h2>${table(['state', 'tasks'], states)}<p>past their deadline: <b>${pastDeadline}</b></p>
<h2>Services</h2>${table(['service', 'metrics', 'outbox pending', 'oldest unpublished', 'consumer lag', 'dead-lettered since start'], services)}
<p>All dead letters, whenever they came: <a href="/dead-letters">Dead letters</a>.</p>
<h2>Busiest users</h2>${busiest ? busiestTable(busiest.items) : html`<p class="error">generation did not answer</p>`}`;
    return page('Overview', content, req.session, { charts: true });
  }
}
