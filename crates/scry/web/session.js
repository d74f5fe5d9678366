// scry web: the session view. It loads the turn directory first and nothing else; a turn's
// text, a tool call's arguments and result, every event of a turn (in chunks), stats and
// ledgers load when opened. A target event (from a search hit or a ledger link) is read on
// its own, its turn opened, and the event marked, focused and scrolled into view. While it is
// open, the session's stream (live.js) brings new turns and the growth of open ones.
// `rev=N` in the hash reads the session's N-th earlier revision (issue 20: what a rewrite of
// its source removed, kept by the index); a revision never changes, so it is not followed.

import { API, get } from './api.js';
import { clear, errorBox, findRanges, firstLine, fmtDuration, fmtTime, h, markRanges, plural, queryRegex } from './dom.js';
import { atBottom, followSession } from './live.js';
import { main, sessionHash, state, withRev } from './nav.js';
import { copyRef, eventRef, sessionRef } from './ref.js';
import { renderSide } from './side.js';

const DIR_CHUNK = 200; // turn-directory rows rendered at once
const EVENTS_CHUNK = 50; // events read at once (the API's event limit)

export async function renderSession(id, params, token) {
  clear(main);
  const target = {
    event: params.get('e') ? Number(params.get('e')) : null,
    locator: params.get('loc') || null,
    field: params.get('f') || null,
    q: params.get('q') || '',
    regex: params.get('regex') === '1',
    case: params.get('case') === '1',
  };
  const rev = Number(params.get('rev')) > 0 ? Number(params.get('rev')) : null;
  const status = h('p', { class: 'status-line' }, 'Loading the turn directory…');
  main.append(status);
  let dir;
  try {
    dir = await get(API.turns(id), rev ? { revision: rev } : undefined);
  } catch (e) {
    if (token !== state.renderToken) return;
    status.replaceWith(errorBox(e));
    return;
  }
  if (token !== state.renderToken) return;
  const s = dir.session || {};
  const uri = s.uri || id;
  state.view = { id: uri, rev, session: s, turns: dir.turns || [], target, token, re: queryRegex(target.q, target.regex, target.case) };
  status.remove();
  const back = h('a', { href: state.lastListHash, class: 'muted' }, state.lastListHash.startsWith('#/search') ? '← back to the results' : '← all sessions');
  const heading = h('h1', { tabindex: '-1', id: 'session-title' }, s.title || uri,
    s.live === false ? [' ', h('span', { class: 'badge deleted', title: 'The agent deleted the source; read from the index until `scry index --prune`' }, 'deleted')] : null,
    rev ? [' ', h('span', { class: 'badge superseded', title: 'What an earlier version of the source held before the agent rewrote it; kept by the index until `scry index --prune`' }, `revision ${rev} · superseded`)] : null);
  const meta = h('div', { class: 'meta' },
    h('span', { class: 'mono' }, uri),
    h('span', null, s.cwd || ''),
    s.git_branch ? h('span', null, `branch ${s.git_branch}`) : null,
    h('span', null, `${fmtTime(s.created)} → ${fmtTime(s.updated)}`),
    s.models && s.models.length ? h('span', null, s.models.join(', ')) : null,
    h('button', { type: 'button', class: 'link', onclick: () => copyRef(sessionRef(state.view)) }, 'copy reference'));
  const dirEl = h('div', { id: 'turns', role: 'list', 'aria-label': 'Turns' });
  const count = h('h2', { id: 'turn-count' }, `${plural(state.view.turns.length, 'turn')}`);
  const revisions = h('p', { class: 'revisions muted', hidden: true });
  main.append(back, heading, meta, revisions, count, dirEl);
  renderDirectory(dirEl, 0);
  if (rev) {
    revisions.hidden = false;
    revisions.append('An earlier revision of this session. ', h('a', { href: sessionHash(id) }, 'The current session'));
  } else {
    followSession(uri, () => liveUpdate(token), () => {
      if (token === state.renderToken) main.append(h('p', { class: 'warn' }, 'The session file was deleted; no more updates.'));
    });
    listRevisions(id, dir.revisions, revisions);
  }
  renderSide(state.view);
  if (dir.warnings && dir.warnings.length) {
    main.append(h('p', { class: 'warn' }, `${plural(dir.warnings.length, 'warning')} while reading this session`));
  }
  if (target.event !== null || target.locator) {
    await jumpTo(target, token);
  } else {
    heading.focus();
  }
}

/** Links the session's earlier revisions (the turn directory lists them when the index keeps
 * any; no request of its own, so the first paint stays one request). */
function listRevisions(id, revs, el) {
  if (!revs || !revs.length) return;
  el.hidden = false;
  el.append(`${plural(revs.length, 'earlier revision')} (the source was rewritten): `);
  revs.forEach((r, i) => {
    if (i) el.append(' · ');
    el.append(h('a', { href: sessionHash(id, { rev: r.n }), title: `replaced ${fmtTime(r.replaced_at)}` }, `revision ${r.n} (${plural(r.events, 'event')})`));
  });
}

function turnSummary(t) {
  const bits = [`T${t.number}`, fmtTime(t.time), fmtDuration(t.duration_ms)];
  if (t.first_event !== undefined) bits.push(`E${t.first_event}–E${t.last_event}`);
  if (t.tool_calls) bits.push(plural(t.tool_calls, 'call'));
  if (t.failures) bits.push(`${t.failures} failed`);
  if (t.commands) bits.push(plural(t.commands, 'command'));
  if (t.file_writes) bits.push(plural(t.file_writes, 'write'));
  const states = (t.status || []).map((st) => h('span', { class: `badge ${st.state}`, title: st.detail || '' }, st.state));
  return h('summary', { title: 'Enter to open or close this turn' },
    h('span', { class: 'head' }, bits.filter(Boolean).join(' · '), ' ', states),
    t.prompt ? h('div', { class: 'prompt' }, '› ', firstLine(t.prompt, 240)) : h('div', { class: 'prompt muted' }, t.number === 0 ? '(preamble)' : '(no prompt)'),
    t.answer ? h('div', { class: 'answer' }, '‹ ', firstLine(t.answer, 240)) : null);
}

/** Renders directory rows [from, from + DIR_CHUNK); a button renders the next chunk. */
function renderDirectory(dirEl, from) {
  const turns = state.view.turns;
  const to = Math.min(turns.length, from + DIR_CHUNK);
  for (let i = from; i < to; i++) dirEl.append(turnRow(turns[i]));
  const old = dirEl.querySelector('.dir-more');
  if (old) old.remove();
  if (to < turns.length) {
    dirEl.append(h('div', { class: 'dir-more' }, h('button', {
      type: 'button',
      onclick: () => { renderDirectory(dirEl, to); },
    }, `Show turns ${turns[to].number}–${turns[Math.min(turns.length, to + DIR_CHUNK) - 1].number} (${turns.length - to} more)`)));
  }
}

/** The directory row of turn `t` (its body loads when opened). */
function turnRow(t) {
  const d = h('details', { class: 'turn', id: `turn-${t.number}`, role: 'listitem', dataset: { turn: t.number } }, turnSummary(t));
  d.addEventListener('toggle', () => { if (d.open && !d.dataset.loaded) loadTurn(d, state.view.turns.find((x) => x.number === t.number) || t); });
  return d;
}

let liveBusy = null;

/**
 * The session stream said new events were written: read the turn directory again, update the
 * rows of turns that grew (and the body of an open one), append new turns. The scroll position
 * stays, unless the page was at its bottom: then it follows the new end.
 */
async function liveUpdate(token) {
  if (liveBusy) { liveBusy.again = true; return; }
  liveBusy = { again: false };
  try {
    do {
      liveBusy.again = false;
      await applyLive(token);
    } while (liveBusy.again && token === state.renderToken);
  } finally {
    liveBusy = null;
  }
}

async function applyLive(token) {
  let dir;
  try { dir = await get(API.turns(state.view.id)); } catch (_) { return; }
  if (token !== state.renderToken) return;
  const bottom = atBottom();
  const before = new Map(state.view.turns.map((t) => [t.number, t]));
  const turns = dir.turns || [];
  state.view.turns = turns;
  const dirEl = document.getElementById('turns');
  const more = dirEl.querySelector('.dir-more');
  for (const t of turns) {
    const old = before.get(t.number);
    const el = document.getElementById(`turn-${t.number}`);
    if (old && el) {
      if (old.last_event === t.last_event && old.prompt === t.prompt && old.answer === t.answer) continue;
      el.replaceChild(turnSummary(t), el.querySelector(':scope > summary'));
      el.classList.add('grew');
      const body = el.querySelector(':scope > .body');
      if (el.dataset.loaded && body) {
        body.querySelectorAll(':scope > .tools, :scope > .all-events, :scope > .page-more').forEach((x) => x.remove());
        loadTurn(el, t);
      }
    } else if (!old && !more) {
      const row = turnRow(t);
      row.classList.add('grew');
      dirEl.append(row);
    }
  }
  const count = document.getElementById('turn-count');
  if (count) count.textContent = plural(turns.length, 'turn');
  if (bottom) window.scrollTo(0, document.documentElement.scrollHeight);
}

/** Makes sure the directory row of turn `n` exists (renders chunks up to it). */
function ensureTurnRow(n) {
  const dirEl = document.getElementById('turns');
  let el = document.getElementById(`turn-${n}`);
  while (!el) {
    const btn = dirEl.querySelector('.dir-more button');
    if (!btn) return null;
    btn.click();
    el = document.getElementById(`turn-${n}`);
  }
  return el;
}

/** One event as an article; `full` events carry args / data / raw. */
function eventEl(ev, opts) {
  const o = opts || {};
  const view = state.view;
  const cls = ['ev', ev.kind];
  if (ev.is_error) cls.push('failed');
  const head = h('div', { class: 'ev-head' },
    h('strong', null, `E${ev.event}`), h('span', null, ev.kind + (ev.subtype ? ` · ${ev.subtype}` : '')),
    ev.tool ? h('span', { class: 'mono' }, ev.tool) : null,
    h('span', null, fmtTime(ev.time)),
    ev.model ? h('span', null, ev.model) : null,
    ev.is_error ? h('span', { class: 'badge error' }, 'error') : null,
    ev.exit_code !== undefined && ev.exit_code !== null ? h('span', null, `exit ${ev.exit_code}`) : null,
    h('button', { type: 'button', class: 'link', onclick: () => copyRef(eventRef(state.view, ev)) }, 'copy reference'));
  const text = h('div', { class: 'text' });
  const ranges = o.ranges || (view.re ? findRanges(ev.text || '', view.re) : []);
  text.append(ranges.length ? markRanges(ev.text || '', ranges) : (ev.text || ''));
  if (ev.truncated) text.append(h('div', { class: 'muted' }, '(cut here: read the rest with the CLI command of "copy reference")'));
  return h('article', {
    class: cls.join(' '), id: `e-${ev.event}`, tabindex: '-1',
    dataset: { event: ev.event, locator: ev.locator || '' },
    'aria-label': `Event ${ev.event}, ${ev.kind}`,
  }, head, text);
}

/** Loads one turn's dialogue and its folded tool-call directory (paged by cursor). */
async function loadTurn(d, t, cursor) {
  d.dataset.loaded = '1';
  let bodyEl = d.querySelector('.body');
  if (!bodyEl) { bodyEl = h('div', { class: 'body' }); d.append(bodyEl); }
  const loading = h('p', { class: 'muted' }, 'Loading…');
  bodyEl.append(loading);
  let data;
  try {
    data = await get(API.content(state.view.id), withRev({ turns: String(t.number), cursor }));
  } catch (e) {
    loading.replaceWith(errorBox(e));
    delete d.dataset.loaded;
    return;
  }
  loading.remove();
  for (const turn of data.turns || []) {
    for (const ev of turn.events || []) {
      if (!document.getElementById(`e-${ev.event}`)) insertEvent(bodyEl, eventEl(ev));
    }
    if ((turn.tools || []).length && !bodyEl.querySelector('.tools')) bodyEl.append(toolsEl(turn));
    if (turn.not_shown && Object.keys(turn.not_shown).length && !bodyEl.querySelector('.all-events')) {
      const what = Object.entries(turn.not_shown).map(([k, n]) => `${n} ${k}`).join(', ');
      bodyEl.append(h('p', { class: 'all-events muted' }, `Not shown: ${what}. `,
        h('button', { type: 'button', class: 'link', onclick: (e) => { e.target.disabled = true; loadAllEvents(bodyEl, t); } }, 'show every event of this turn')));
    }
  }
  if (data.next_cursor) {
    const btn = h('button', {
      type: 'button', class: 'page-more',
      onclick: () => { btn.remove(); loadTurn(d, t, data.next_cursor); },
    }, 'Load the rest of this turn');
    bodyEl.append(btn);
  }
}

/** Inserts an event article in event order among the articles already in `bodyEl`. */
function insertEvent(bodyEl, el) {
  const n = Number(el.dataset.event);
  const after = Array.from(bodyEl.querySelectorAll(':scope > article.ev')).find((a) => Number(a.dataset.event) > n);
  if (after) bodyEl.insertBefore(after === el ? null : el, after);
  else {
    const tools = bodyEl.querySelector(':scope > .tools, :scope > .all-events, :scope > .page-more');
    if (tools) bodyEl.insertBefore(el, tools);
    else bodyEl.append(el);
  }
}

/** The turn's tool calls, folded: one line each; opening one reads its call and result. */
function toolsEl(turn) {
  const tools = turn.tools || [];
  const failed = tools.filter((c) => c.failed).length;
  const box = h('details', { class: 'tools' },
    h('summary', null, `${plural(tools.length, 'tool call')}${failed ? `, ${failed} failed` : ''}`));
  for (const c of tools) {
    const status = c.status || (c.failed ? 'error' : 'ok');
    const tool = h('details', { class: 'tool', dataset: { event: c.event } },
      h('summary', null, `E${c.event}  ${c.tool || ''}  ${firstLine(c.args || '', 120)}  → `,
        h('span', { class: `badge ${status}` }, status),
        c.result_event ? ` (E${c.result_event})` : ''));
    tool.addEventListener('toggle', async () => {
      if (!tool.open || tool.dataset.loaded) return;
      tool.dataset.loaded = '1';
      const bodyEl = h('div', { class: 'call-body' }, h('p', { class: 'muted' }, 'Loading…'));
      tool.append(bodyEl);
      const evs = [c.event, c.result_event].filter((x) => x !== null && x !== undefined).join(',');
      try {
        const data = await get(API.content(state.view.id), withRev({ event: evs }));
        clear(bodyEl);
        for (const t of data.turns || []) for (const ev of t.events || []) bodyEl.append(fullEventEl(ev));
      } catch (e) {
        clear(bodyEl);
        bodyEl.append(errorBox(e));
      }
    });
    box.append(tool);
  }
  return box;
}

/** A full event (from `content?event=`): text plus arguments for tool calls. */
function fullEventEl(ev) {
  const el = eventEl(ev);
  el.id = `full-${ev.event}`;
  if (ev.kind === 'tool_call' && ev.args !== undefined && !(ev.text || '').startsWith('args:')) {
    el.append(h('pre', null, JSON.stringify(ev.args, null, 2)));
  }
  return el;
}

/** Reads every event of a turn in chunks of EVENTS_CHUNK, in order. */
async function loadAllEvents(bodyEl, t) {
  const first = t.first_event;
  const last = t.last_event;
  if (first === undefined || last === undefined) return;
  const holder = h('div', { class: 'every' }, h('h3', null, `Every event of T${t.number}`));
  bodyEl.append(holder);
  for (let a = first; a <= last; a += EVENTS_CHUNK) {
    const b = Math.min(last, a + EVENTS_CHUNK - 1);
    try {
      const data = await get(API.content(state.view.id), withRev({ event: `${a}-${b}` }));
      for (const turn of data.turns || []) for (const ev of turn.events || []) holder.append(fullEventEl(ev));
    } catch (e) {
      holder.append(errorBox(e));
      return;
    }
    if (b < last) {
      const go = await new Promise((resolve) => {
        holder.append(h('button', { type: 'button', onclick: (e) => { e.target.remove(); resolve(true); } }, `Events E${b + 1}–E${Math.min(last, b + EVENTS_CHUNK)}`));
      });
      if (!go) return;
    }
  }
}

/** Opens the turn holding the target event, reads the event in full, highlights it. */
async function jumpTo(target, token) {
  const view = state.view;
  let n = target.event;
  let ev = null;
  try {
    const params = n !== null ? { event: String(n) } : { locator: target.locator };
    const data = await get(API.content(view.id), withRev(params));
    for (const t of data.turns || []) for (const e of t.events || []) if (!ev) ev = e;
  } catch (e) {
    if (token !== state.renderToken) return;
    main.insertBefore(errorBox(e), document.getElementById('turns'));
    return;
  }
  if (token !== state.renderToken || !ev) return;
  n = ev.event;
  if (target.locator && ev.locator && ev.locator !== target.locator) {
    main.insertBefore(h('p', { class: 'warn' }, `The event at E${n} now has another locator (${ev.locator}); the session changed since the search.`), document.getElementById('turns'));
  }
  const turnNo = ev.turn !== undefined && ev.turn !== null ? ev.turn
    : (view.turns.find((t) => t.first_event <= n && n <= t.last_event) || {}).number;
  const d = turnNo !== undefined ? ensureTurnRow(turnNo) : null;
  if (!d) return;
  const t = view.turns.find((x) => x.number === turnNo);
  if (!d.dataset.loaded) {
    const loading = loadTurn(d, t); // marks the row loaded before the toggle event fires
    d.open = true;
    await loading;
  } else {
    d.open = true;
  }
  if (token !== state.renderToken) return;
  const bodyEl = d.querySelector('.body');
  let el = document.getElementById(`e-${n}`);
  const full = eventEl(ev);
  if (el) el.replaceWith(full);
  else insertEvent(bodyEl, full);
  el = full;
  el.classList.add('target');
  el.scrollIntoView({ block: 'center' });
  el.focus({ preventScroll: true });
}
