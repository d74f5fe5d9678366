// scry web: the session view's side panel — the session's facts from the turn directory, and
// tabs that load its stats and its files / commands / errors ledgers when chosen.

import { API, get } from './api.js';
import { clear, errorBox, firstLine, fmtDuration, h } from './dom.js';
import { sessionHash, side, withRev } from './nav.js';

export function renderSide(v) {
  clear(side);
  side.hidden = false;
  const s = v.session;
  const sum = { calls: 0, failures: 0, commands: 0, writes: 0, events: 0 };
  for (const t of v.turns) {
    sum.calls += t.tool_calls || 0;
    sum.failures += t.failures || 0;
    sum.commands += t.commands || 0;
    sum.writes += t.file_writes || 0;
    sum.events += t.events || 0;
  }
  const dl = h('dl', null,
    h('dt', null, 'agent'), h('dd', null, `${s.provider || ''}${s.agent_version ? ` ${s.agent_version}` : ''}`),
    h('dt', null, 'kind'), h('dd', null, s.kind || ''),
    s.parent ? [h('dt', null, 'parent'), h('dd', null, h('a', { href: sessionHash(s.parent) }, s.parent))] : null,
    h('dt', null, 'turns'), h('dd', null, String(v.turns.length)),
    h('dt', null, 'events'), h('dd', null, String(sum.events)),
    h('dt', null, 'tool calls'), h('dd', null, `${sum.calls}${sum.failures ? `, ${sum.failures} failed` : ''}`),
    h('dt', null, 'commands'), h('dd', null, String(sum.commands)),
    h('dt', null, 'file writes'), h('dd', null, String(sum.writes)),
    h('dt', null, 'source'), h('dd', { class: 'mono' }, (s.sources || [])[0] || ''),
    s.live === false ? [h('dt', null, 'note'), h('dd', { class: 'warn' }, 'source file gone; read from the index')] : null);
  const panel = h('div', { id: 'ledger', 'aria-live': 'polite' });
  const tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Stats and ledgers' });
  const names = [['stats', 'Stats'], ['files', 'Files'], ['commands', 'Commands'], ['errors', 'Errors']];
  for (const [key, label] of names) {
    tabs.append(h('button', {
      type: 'button', role: 'tab', 'aria-selected': 'false', 'aria-controls': 'ledger', dataset: { tab: key },
      onclick: (e) => {
        for (const b of tabs.querySelectorAll('button')) b.setAttribute('aria-selected', 'false');
        e.currentTarget.setAttribute('aria-selected', 'true');
        loadLedger(panel, v, key);
      },
    }, label));
  }
  side.append(h('h2', null, 'Session'), dl, tabs, panel);
}

async function loadLedger(panel, v, key) {
  clear(panel);
  panel.append(h('p', { class: 'muted' }, 'Loading…'));
  let data;
  try {
    data = await get(key === 'stats' ? API.session(v.id) : API.ledger(v.id, key), withRev());
  } catch (e) {
    clear(panel);
    panel.append(errorBox(e));
    return;
  }
  clear(panel);
  const link = (evd) => (evd && evd.event !== undefined
    ? h('a', { href: sessionHash(v.id, { e: evd.event, loc: evd.locator || '', rev: v.rev || '' }) }, evd.handle || `E${evd.event}`) : null);
  if (key === 'stats') {
    const st = data.stats || {};
    const tok = st.tokens || {};
    const events = st.events || {};
    panel.append(h('dl', null,
      h('dt', null, 'duration'), h('dd', null, fmtDuration(st.duration_ms)),
      h('dt', null, 'events'), h('dd', null, Object.entries(events).filter(([k]) => k !== 'total').map(([k, n]) => `${k} ${n}`).join(', ')),
      h('dt', null, 'tools'), h('dd', null, Object.entries(st.tools || {}).map(([k, n]) => `${k} ${n}`).join(', ')),
      h('dt', null, 'tokens'), h('dd', null, tok.input === undefined ? 'unknown'
        : `input ${tok.input} · output ${tok.output} · cache read ${tok.cache_read} · cache write ${tok.cache_write}`),
      data.goal ? [h('dt', null, 'goal'), h('dd', null, firstLine(data.goal, 300))] : null,
      data.answer ? [h('dt', null, 'answer'), h('dd', null, firstLine(data.answer, 300))] : null));
  } else if (key === 'files') {
    const ul = h('ul', { class: 'ledger' });
    for (const w of data.writes || []) {
      ul.append(h('li', null, h('span', { class: 'mono' }, w.display || w.path), ' ', h('span', { class: 'badge' }, w.op || ''), ' ', link(w.evidence)));
    }
    panel.append(h('p', { class: 'muted' }, `${(data.files || []).length} files, ${(data.writes || []).length} writes`), ul);
  } else if (key === 'commands') {
    const ul = h('ul', { class: 'ledger' });
    for (const c of data.commands || []) {
      ul.append(h('li', null, h('span', { class: 'mono' }, firstLine(c.command, 160)), ' ',
        h('span', { class: `badge ${c.outcome}` }, c.outcome || ''), ' ', link(c.evidence)));
    }
    const tot = data.total || {};
    panel.append(h('p', { class: 'muted' }, `${tot.commands ?? (data.commands || []).length} commands, ${tot.failed ?? 0} failed`), ul);
  } else {
    const ul = h('ul', { class: 'ledger' });
    for (const f of data.failures || []) {
      ul.append(h('li', null, h('span', { class: 'mono' }, firstLine(f.command || f.tool || '', 160)), ' ', link(f.evidence),
        f.fixed_by ? [' fixed by ', link(f.fixed_by)] : '',
        f.output ? h('pre', null, firstLine(f.output.text, 200)) : null));
    }
    panel.append(h('p', { class: 'muted' }, `${(data.failures || []).length} failures`), ul);
  }
}
