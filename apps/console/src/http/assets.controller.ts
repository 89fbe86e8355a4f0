import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '@app/auth';
import { chartsJs, uplotFile } from './chart-assets';

const css = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24}
nav{display:flex;gap:1rem;align-items:center;padding:.6rem 1rem;background:#1b1f24}nav a{color:#fff;text-decoration:none}
nav .who{margin-left:auto;color:#c9d1d9}main{padding:1rem 1.5rem}h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.5rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td pre{margin:0;white-space:pre-wrap;max-width:60rem}.inline{display:inline}.empty{color:#57606a}
.error{color:#b42318}.ok{color:#1a7f37}form.search input,form.search select{margin-right:.5rem}.tag{font-size:.8em;padding:0 .3rem;border-radius:3px;background:#eaeef2}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.charts figure{margin:0;width:560px}.charts figcaption{font-weight:600}.ranges a{margin-right:.6rem}.ranges a.on{font-weight:700;text-decoration:none;color:#1b1f24}
.waterfall text{font-size:12px}.waterfall .wf-time{fill:#57606a}.wf-work{fill:#0969da}.wf-wait{fill:#eaeef2;stroke:#8c959f;stroke-dasharray:3 2}
.wf-work.lane-quota{fill:#8250df}.wf-work.lane-generation{fill:#bf8700}.wf-work.lane-notification{fill:#1a7f37}
.source-tasks{border-left:4px solid #0969da}.source-quota{border-left:4px solid #8250df}.source-generation{border-left:4px solid #bf8700}.source-notification{border-left:4px solid #1a7f37}`;

/** Progress of a re-drive, polled while its page is open; the page works without it. */
const js = `document.addEventListener('DOMContentLoaded',()=>{const el=document.querySelector('[data-redrive]');if(!el)return;
const tick=async()=>{const r=await fetch(el.dataset.redrive);if(!r.ok)return;
const p=await r.json();if(!p.taken){setTimeout(tick,1000);return}el.textContent=p.done+' of '+p.total+' re-driven'+(p.failedAgain?' ('+p.failedAgain+' failed again and are parked)':'')+(p.finished?' — finished':'');if(!p.finished)setTimeout(tick,1000)};tick()});`;

/** The console's style sheets and scripts (its own, and uPlot's for the charts), served by itself: the pages load nothing from elsewhere. */
@Controller('assets')
export class AssetsController {
  @Public()
  @Get('console.css')
  @Header('content-type', 'text/css; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  css(): string {
    return css;
  }

  @Public()
  @Get('console.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  js(): string {
    return js;
  }

  @Public()
  @Get('charts.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  charts(): string {
    return chartsJs;
  }

  @Public()
  @Get('uplot.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=3600')
  uplotJs(): string {
    return uplotFile('uPlot.iife.min.js');
  }

  @Public()
  @Get('uplot.css')
  @Header('content-type', 'text/css; charset=utf-8')
  @Header('cache-control', 'public, max-age=3600')
  uplotCss(): string {
    return uplotFile('uPlot.min.css');
  }
}
