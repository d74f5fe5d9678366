// scry web: the Usage view (#/usage?by=model|provider|project): tokens and USD per day from
// `/v1/usage` (the JSON of `scry usage daily --json`), drawn as inline SVG stacked bars (no
// chart library, no external request), then the day table. Models without a price are named
// as unpriced with their tokens, never drawn as $0. The provider and since filters apply.

import { get } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { currentFilters, hashFor, main, state } from './nav.js';

// The SVG namespace, read from the hidden <svg> of index.html (the page names no address).
const SVG = document.getElementById('svg-ns').namespaceURI;
const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of kids) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export function money(v) {
  if (v === null || v === undefined) return 'unpriced';
  return v > 0 && v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

function tokens(n) { return Number(n).toLocaleString('en-US'); }

/** Stacked bars: one per row (day), one segment per breakdown part, sized by value(part). */
function chart(id, title, rows, value, fmt) {
  const keys = [...new Set(rows.flatMap((r) => r.breakdown.map((p) => p.key)))];
  const color = (k) => COLORS[keys.indexOf(k) % COLORS.length];
  const totals = rows.map((r) => r.breakdown.reduce((a, p) => a + (value(p) || 0), 0));
  const max = Math.max(...totals, 0);
  const W = 640, H = 160, left = 70, gap = 6;
  const bw = Math.max(6, Math.min(48, (W - left) / Math.max(1, rows.length) - gap));
  const svg = s('svg', { id, class: 'chart', viewBox: `0 0 ${W} ${H + 24}`, role: 'img', 'aria-label': title });
  svg.append(s('line', { x1: left - 4, y1: H, x2: W, y2: H, stroke: 'currentColor', 'stroke-width': 1 }));
  svg.append(s('text', { x: 0, y: 12, 'font-size': 11, fill: 'currentColor' }, fmt(max)));
  rows.forEach((r, i) => {
    const x = left + i * (bw + gap);
    let y = H;
    for (const p of r.breakdown) {
      const v = value(p) || 0;
      if (!v || !max) continue;
      const ht = (v / max) * (H - 16);
      y -= ht;
      svg.append(s('rect', { x, y, width: bw, height: ht, fill: color(p.key), 'data-day': r.key, 'data-key': p.key, 'data-value': v },
        s('title', {}, `${r.key} · ${p.key}: ${fmt(v)}`)));
    }
    svg.append(s('text', { x, y: H + 16, 'font-size': 10, fill: 'currentColor' }, r.key.slice(5)));
  });
  const legend = h('ul', { class: 'legend' }, keys.map((k) => h('li', {},
    h('span', { class: 'swatch', dataset: { color: color(k) } }), k)));
  // The CSP forbids inline styles: swatches are drawn as tiny SVGs.
  for (const sw of legend.querySelectorAll('.swatch')) {
    sw.append(s('svg', { width: 10, height: 10 }, s('rect', { width: 10, height: 10, fill: sw.dataset.color })));
  }
  return h('figure', { class: 'usage-chart' }, h('figcaption', {}, title), svg, legend);
}

export async function renderUsage(params, token) {
  clear(main);
  const by = ['model', 'provider', 'project'].includes(params.get('by')) ? params.get('by') : 'model';
  const f = currentFilters();
  main.append(h('h1', { tabindex: '-1' }, 'Usage'));
  const pick = h('nav', { class: 'usage-by', 'aria-label': 'Break down by' }, 'by ',
    ['model', 'provider', 'project'].map((b) => (b === by
      ? h('strong', {}, b)
      : h('a', { href: hashFor('/usage', { by: b === 'model' ? '' : b, provider: f.provider, since: f.since }) }, b))));
  main.append(pick);
  const status = h('p', { class: 'status' }, 'Loading…');
  main.append(status);
  let r;
  try {
    r = await get('/v1/usage', { report: 'daily', by, provider: f.provider, since: f.since });
  } catch (e) {
    if (token === state.renderToken) status.replaceWith(errorBox(e));
    return;
  }
  if (token !== state.renderToken) return;
  status.remove();
  const rows = r.rows.filter((row) => row.key !== 'unknown');
  if (!r.rows.length) {
    main.append(h('p', { class: 'empty' }, 'No usage recorded.'));
    return;
  }
  const t = r.totals;
  main.append(h('p', { class: 'usage-total', id: 'usage-total' },
    `${money(t.cost_usd)}${t.unpriced && t.unpriced.length && t.cost_usd !== null ? ' + unpriced' : ''} · ${tokens(t.tokens.total)} tokens · ${t.requests} requests`));
  main.append(chart('chart-cost', `Cost per day by ${by}`, rows, (p) => p.cost_usd, money));
  main.append(chart('chart-tokens', `Tokens per day by ${by}`, rows, (p) => p.tokens.total, tokens));
  const table = h('table', { class: 'usage-table', id: 'usage-table' },
    h('thead', {}, h('tr', {}, ['Day', by, 'Input', 'Output', 'Cache write', 'Cache read', 'Total', 'Cost'].map((c) => h('th', {}, c)))),
    h('tbody', {}, r.rows.map((row) => h('tr', { dataset: { day: row.key } },
      h('td', {}, row.key), h('td', {}, row.breakdown.map((p) => p.key).join(', ')),
      h('td', {}, tokens(row.tokens.input)), h('td', {}, tokens(row.tokens.output)),
      h('td', {}, tokens(row.tokens.cache_write)), h('td', {}, tokens(row.tokens.cache_read)),
      h('td', {}, tokens(row.tokens.total)),
      h('td', {}, money(row.cost_usd) + (row.unpriced && row.cost_usd !== null ? ' + unpriced' : ''))))));
  main.append(table);
  if (t.unpriced && t.unpriced.length) {
    main.append(h('p', { class: 'unpriced', id: 'usage-unpriced' },
      'Unpriced (not in the cost): ', t.unpriced.map((u) => `${u.model} (${tokens(u.tokens.total)} tokens)`).join(', '),
      '. Add [pricing."<model>"] to the config file.'));
  }
  main.append(h('p', { class: 'note' }, `Prices: LiteLLM ${r.prices.litellm} snapshot of ${r.prices.date}; days in ${r.timezone}.`));
}
