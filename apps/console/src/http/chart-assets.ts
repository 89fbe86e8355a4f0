import * as fs from 'node:fs';
import * as path from 'node:path';

const uplotFiles = new Map<string, string>();

/** uPlot's own files, from the uplot package in node_modules (found walking up: from sources and from dist/ alike), read once. */
export function uplotFile(name: 'uPlot.iife.min.js' | 'uPlot.min.css'): string {
  const cached = uplotFiles.get(name);
  if (cached !== undefined) return cached;
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', 'uplot', 'dist', name);
    if (fs.existsSync(candidate)) {
      uplotFiles.set(name, fs.readFileSync(candidate, 'utf8'));
      return uplotFiles.get(name)!;
    }
  }
  throw new Error(`uplot's ${name} is not installed above ${__dirname}`);
}

/**
 * Draws every `[data-chart]` figure of the page with uPlot: its series are in the figure's
 * `data-series` attribute (aligned columns, as the console's server read them from Prometheus).
 */
export const chartsJs = `document.addEventListener('DOMContentLoaded',()=>{
const palette=['#0969da','#cf222e','#1a7f37','#8250df','#bf8700','#57606a'];
for(const fig of document.querySelectorAll('[data-chart]')){
const d=JSON.parse(fig.dataset.series);const box=fig.querySelector('.plot');
if(d.columns[0].length===0){box.textContent=d.problem||'no data in this range';continue}
new uPlot({width:Math.min(560,fig.clientWidth||560),height:200,
series:[{},...d.names.map((n,i)=>({label:n,stroke:palette[i%palette.length],width:1.5,spanGaps:true}))],
axes:[{},{label:d.unit,size:60}],legend:{live:false}},d.columns,box)}});`;
