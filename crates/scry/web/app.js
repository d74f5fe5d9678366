// scry web: the page's script (embedded in the binary; no framework, no build step).
//
// Three views, chosen by the location hash so every view is a link:
//   #/?scope=…&provider=…&since=…&kind=…        the session list (paged)
//   #/search?q=…&regex=1&case=1&area=…&<filters>  search results, grouped by session
//   #/s/<uri>?e=<event>&loc=<locator>&q=…&r=a-b   one session; e/loc jump to an event
// The session view loads the turn directory first and nothing else; a turn's text, a tool
// call's arguments and result, every event of a turn, stats and ledgers load when opened.
// Text from sessions is only ever put in the page through textContent (never innerHTML).
'use strict';

(function () {
  const API = {
    sessions: '/v1/sessions',
    session: (id) => `/v1/sessions/${encodeURIComponent(id)}`,
    turns: (id) => `/v1/sessions/${encodeURIComponent(id)}/turns`,
    content: (id) => `/v1/sessions/${encodeURIComponent(id)}/content`,
    ledger: (id, name) => `/v1/sessions/${encodeURIComponent(id)}/${name}`,
    search: '/v1/search',
  };
  const PAGE = 50; // sessions per list page
  const SEARCH_PAGE = 20; // sessions per search page
  const DIR_CHUNK = 200; // turn-directory rows rendered at once
  const EVENTS_CHUNK = 50; // events read at once (the API's --event limit)

  const body = document.body;
  const config = {
    scope: body.dataset.scope && !body.dataset.scope.startsWith('{{') ? body.dataset.scope : 'global',
    demo: body.dataset.demo === 'true',
    version: body.dataset.version || '',
  };
  const main = document.getElementById('main');
  const side = document.getElementById('side');
  const qInput = document.getElementById('q');
  const regexBox = document.getElementById('regex');
  const caseBox = document.getElementById('case');
  const areaSel = document.getElementById('area');
  const fScope = document.getElementById('f-scope');
  const fProvider = document.getElementById('f-provider');
  const fSince = document.getElementById('f-since');
  const fKind = document.getElementById('f-kind');
  const FILTERS = ['scope', 'provider', 'since', 'kind'];
  let lastListHash = '#/'; // where Escape and "back" return to from a session
  let renderToken = 0; // increases per navigation; stale async work checks it and stops

  // ---------- small helpers ----------

  /** Builds an element: h('a', {href: '#', class: 'x'}, 'text', child, …). */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') el.className = v;
        else if (k === 'text') el.textContent = v;
        else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
        else if (k === 'dataset') {
          for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) el.dataset[dk] = String(dv);
        }
        else el.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  /** GET a JSON route; errors carry the closed error code of the API. */
  async function get(path, params) {
    const qs = new URLSearchParams();
    if (params) {
      for (const [k, v] of Object.entries(params)) {
        if (v !== undefined && v !== null && v !== '' && v !== false) qs.set(k, v === true ? 'true' : String(v));
      }
    }
    const url = qs.toString() ? `${path}?${qs}` : path;
    let res;
    try {
      res = await fetch(url, { headers: { Accept: 'application/json' } });
    } catch (e) {
      throw new ApiError(0, 'NETWORK', `cannot reach the scry server (${e.message})`);
    }
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (!res.ok) {
      const err = data && data.error ? data.error : {};
      throw new ApiError(res.status, err.code || `HTTP_${res.status}`, err.message || res.statusText);
    }
    return data;
  }

  function errorBox(e) {
    const code = e && e.code ? `${e.code}: ` : '';
    return h('div', { class: 'error-box', role: 'alert' }, code + (e && e.message ? e.message : String(e)));
  }

  function fmtTime(iso) {
    if (!iso) return '';
    return String(iso).replace('T', ' ').replace(/(:\d\d)(\.\d+)?Z$/, '$1').slice(0, 16);
  }

  function fmtDuration(ms) {
    if (ms === null || ms === undefined) return '';
    const s = Math.round(ms / 1000);
    if (s < 60) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
    return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
  }

  function firstLine(text, max) {
    const t = String(text || '').split('\n').find((l) => l.trim() !== '') || '';
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
  }

  function plural(n, one, many) { return `${n} ${n === 1 ? one : (many || `${one}s`)}`; }

  function toast(msg) {
    const t = document.getElementById('toast');
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 2500);
  }

  // ---------- highlighting ----------

  /** Code points of a string (the API's character ranges count Unicode scalar values). */
  function chars(s) { return Array.from(String(s)); }

  /** A fragment of `text` with the [start, end) code-point ranges wrapped in <mark>. */
  function markRanges(text, ranges) {
    const cps = chars(text);
    const frag = document.createDocumentFragment();
    let pos = 0;
    const sorted = (ranges || []).filter((r) => r && r[1] > r[0]).slice().sort((a, b) => a[0] - b[0]);
    for (const [a0, b0] of sorted) {
      const a = Math.max(a0, pos);
      const b = Math.min(b0, cps.length);
      if (a >= b) continue;
      if (a > pos) frag.append(cps.slice(pos, a).join(''));
      frag.append(h('mark', null, cps.slice(a, b).join('')));
      pos = b;
    }
    if (pos < cps.length) frag.append(cps.slice(pos).join(''));
    return frag;
  }

  /** A RegExp for the query as the API reads it: literal (whitespace-flexible) or regex. */
  function queryRegex(q, isRegex, isCase) {
    if (!q) return null;
    const flags = `g${isCase ? '' : 'i'}u`;
    try {
      if (isRegex) return new RegExp(q, flags);
      const parts = q.trim().split(/\s+/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return new RegExp(parts.join('\\s+'), flags);
    } catch (_) {
      return null;
    }
  }

  /** Code-point ranges where `re` matches `text` (at most 200). */
  function findRanges(text, re) {
    if (!re) return [];
    const out = [];
    const s = String(text);
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(s)) && out.length < 200) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      const a = chars(s.slice(0, m.index)).length;
      out.push([a, a + chars(m[0]).length]);
    }
    return out;
  }

  // ---------- filters and routing ----------

  function currentFilters() {
    return {
      scope: fScope.value.trim() || 'global',
      provider: fProvider.value,
      since: fSince.value,
      kind: fKind.value,
    };
  }

  function setFilters(p) {
    fScope.value = p.get('scope') || config.scope || 'global';
    fProvider.value = p.get('provider') || '';
    fSince.value = p.get('since') || '';
    fKind.value = p.get('kind') || '';
  }

  function parseHash() {
    const raw = location.hash.replace(/^#/, '') || '/';
    const qi = raw.indexOf('?');
    const path = qi >= 0 ? raw.slice(0, qi) : raw;
    const params = new URLSearchParams(qi >= 0 ? raw.slice(qi + 1) : '');
    if (path.startsWith('/s/')) return { view: 'session', id: decodeURIComponent(path.slice(3)), params };
    if (path === '/search') return { view: 'search', params };
    return { view: 'list', params };
  }

  function hashFor(view, params) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') qs.set(k, v);
    const s = qs.toString();
    return `#${view}${s ? `?${s}` : ''}`;
  }

  function sessionHash(uri, extra) {
    return hashFor(`/s/${encodeURIComponent(uri)}`, extra || {});
  }

  function filterParams() {
    const f = currentFilters();
    return { scope: f.scope === 'global' ? '' : f.scope, provider: f.provider, since: f.since, kind: f.kind };
  }

  function route() {
    const r = parseHash();
    const token = ++renderToken;
    if (r.view !== 'session') {
      lastListHash = location.hash || '#/';
      side.hidden = true;
      clear(side);
    }
    if (r.view === 'session') {
      renderSession(r.id, r.params, token);
    } else if (r.view === 'search') {
      setFilters(r.params);
      qInput.value = r.params.get('q') || '';
      regexBox.checked = r.params.get('regex') === '1';
      caseBox.checked = r.params.get('case') === '1';
      areaSel.value = r.params.get('area') || 'dialogue';
      renderSearch(r.params, token);
    } else {
      setFilters(r.params);
      renderList(token);
    }
  }

  // ---------- session list ----------

  function sessionRow(s) {
    const kids = s.children ? Object.values(s.children).reduce((a, b) => a + (Number(b) || 0), 0) : 0;
    return h('li', null,
      h('a', { class: 'row', href: sessionHash(s.uri), dataset: { uri: s.uri } },
        h('span', { class: 'prov' }, s.provider, s.kind && s.kind !== 'main' ? ` · ${s.kind}` : ''),
        h('span', { class: 'title' }, s.title || s.id),
        h('span', { class: 'when' }, fmtTime(s.updated || s.created)),
        h('span', { class: 'sub' }, s.cwd || '', kids ? ` · ${plural(kids, 'child session')}` : '',
          s.live === false ? ' · source gone (index only)' : '')));
  }

  async function renderList(token) {
    clear(main);
    const f = currentFilters();
    const heading = h('h1', { tabindex: '-1' }, 'Sessions');
    const status = h('p', { class: 'status-line' }, 'Loading…');
    const list = h('ul', { class: 'sessions', 'aria-label': 'Sessions, newest first' });
    const more = h('div', { class: 'more' });
    main.append(heading, status, list, more);
    let shown = 0;
    let cursor = null;
    let limit = PAGE;
    const scopes = new Set();

    async function page() {
      const params = { scope: f.scope, provider: f.provider, since: f.since, kind: f.kind, limit };
      if (cursor) { params.cursor = cursor; params.limit = PAGE; }
      let data;
      try {
        data = await get(API.sessions, params);
      } catch (e) {
        if (token !== renderToken) return;
        status.replaceWith(errorBox(e));
        return;
      }
      if (token !== renderToken) return;
      const sessions = data.sessions || [];
      // With a cursor the API returns the next page; without one it returns the first `limit`
      // sessions, of which the first `shown` are already on the page.
      const fresh = cursor ? sessions : sessions.slice(shown);
      for (const s of fresh) {
        list.append(sessionRow(s));
        if (s.cwd) scopes.add(s.cwd);
      }
      shown += fresh.length;
      const total = typeof data.total === 'number' ? data.total : null;
      status.textContent = total !== null
        ? `${shown} of ${total} sessions · scope ${f.scope}${data.hidden ? ` · ${data.hidden} folded` : ''}`
        : `${shown} sessions · scope ${f.scope}`;
      fillScopes(scopes);
      clear(more);
      const hasMore = data.next_cursor || (total !== null && shown < total);
      if (hasMore && fresh.length > 0) {
        cursor = data.next_cursor || null;
        if (!cursor) limit = shown + PAGE;
        more.append(h('button', {
          type: 'button',
          onclick: (ev) => { ev.target.disabled = true; ev.target.textContent = 'Loading…'; page(); },
        }, `Show ${PAGE} more`));
      }
      if (shown === 0) list.append(h('li', { class: 'muted' }, 'No sessions match these filters.'));
    }
    await page();
  }

  function fillScopes(scopes) {
    const dl = document.getElementById('scopes');
    const have = new Set(Array.from(dl.options).map((o) => o.value));
    for (const s of scopes) if (!have.has(s)) dl.append(h('option', { value: s }));
  }

  // ---------- search ----------

  function hitLink(hit, q, flags) {
    const extra = { q, regex: flags.regex ? '1' : '', case: flags.case ? '1' : '' };
    if (hit.event !== null && hit.event !== undefined) extra.e = hit.event;
    if (hit.locator) extra.loc = hit.locator;
    if (hit.field) extra.f = hit.field;
    const where = [];
    if (hit.turn !== null && hit.turn !== undefined) where.push(`T${hit.turn}`);
    if (hit.event !== null && hit.event !== undefined) where.push(`E${hit.event}`);
    where.push(hit.kind || hit.field || '');
    if (hit.time) where.push(fmtTime(hit.time));
    if (hit.match_count > 1) where.push(`${hit.match_count} matches`);
    const start = hit.excerpt_start || 0;
    const local = (hit.ranges || []).map(([a, b]) => [a - start, b - start]);
    const ex = h('div', { class: 'excerpt' });
    ex.append(start > 0 ? '…' : '', markRanges(hit.excerpt || '', local));
    return h('a', { class: 'hit', href: sessionHash(hit.uri, extra), dataset: { uri: hit.uri, event: hit.event } },
      h('div', { class: 'where' }, where.filter(Boolean).join(' · '), hit.field && hit.field !== 'text' ? ` · in ${hit.field}` : ''),
      ex);
  }

  async function renderSearch(params, token) {
    clear(main);
    const q = params.get('q') || '';
    const flags = { regex: params.get('regex') === '1', case: params.get('case') === '1' };
    const f = currentFilters();
    const heading = h('h1', { tabindex: '-1' }, 'Search: ', h('span', { class: 'mono' }, q));
    const status = h('p', { class: 'status-line' }, 'Searching…');
    const results = h('div', { id: 'results' });
    const more = h('div', { class: 'more' });
    main.append(heading, status, results, more);
    if (!q.trim()) { status.textContent = 'Type a query and press Enter.'; return; }
    let cursor = null;
    let shownSessions = 0;
    async function page() {
      const p = {
        q, regex: flags.regex, case: flags.case, area: params.get('area') || '',
        scope: f.scope, provider: f.provider, since: f.since,
        limit: SEARCH_PAGE, cursor,
      };
      let data;
      const t0 = performance.now();
      try {
        data = await get(API.search, p);
      } catch (e) {
        if (token !== renderToken) return;
        status.replaceWith(errorBox(e));
        return;
      }
      if (token !== renderToken) return;
      const ms = Math.round(performance.now() - t0);
      for (const g of data.sessions || []) {
        const s = g.session || {};
        const uri = s.uri || (g.hits && g.hits[0] && g.hits[0].uri) || '';
        const list = h('ul', { class: 'hits' });
        for (const hit of g.hits || []) list.append(h('li', null, hitLink(hit, q, flags)));
        const moreHits = g.has_more_hits ? h('p', { class: 'muted' }, `${g.hit_count - (g.hits || []).length} more hits in this session`) : null;
        results.append(h('section', { class: 'group' },
          h('h2', null, h('a', { href: sessionHash(uri, { q, regex: flags.regex ? '1' : '', case: flags.case ? '1' : '' }) }, s.title || uri)),
          h('div', { class: 'meta' }, h('span', null, s.provider || ''), h('span', null, s.cwd || ''),
            h('span', null, fmtTime(s.updated)), h('span', null, plural(g.hit_count || 0, 'hit'))),
          list, moreHits));
        shownSessions++;
      }
      const folded = data.self_folded ? ` · ${data.self_folded} hits from scry's own runs folded` : '';
      status.textContent = `${data.total_matches ?? '?'} matches in ${plural(data.total_sessions ?? shownSessions, 'session')}` +
        ` · showing ${shownSessions}${folded} · ${ms} ms`;
      if (shownSessions === 0) results.append(h('p', { class: 'muted' }, 'No matches.'));
      clear(more);
      if (data.next_cursor) {
        cursor = data.next_cursor;
        more.append(h('button', {
          type: 'button',
          onclick: (ev) => { ev.target.disabled = true; page(); },
        }, 'More results'));
      }
    }
    await page();
  }

  // ---------- session view ----------

  /** Everything the session view keeps while it is shown. */
  let view = null;

  async function renderSession(id, params, token) {
    clear(main);
    const target = {
      event: params.get('e') ? Number(params.get('e')) : null,
      locator: params.get('loc') || null,
      field: params.get('f') || null,
      q: params.get('q') || '',
      regex: params.get('regex') === '1',
      case: params.get('case') === '1',
    };
    const status = h('p', { class: 'status-line' }, 'Loading the turn directory…');
    main.append(status);
    let dir;
    try {
      dir = await get(API.turns(id));
    } catch (e) {
      if (token !== renderToken) return;
      status.replaceWith(errorBox(e));
      return;
    }
    if (token !== renderToken) return;
    const s = dir.session || {};
    const uri = s.uri || id;
    view = { id: uri, session: s, turns: dir.turns || [], target, token, re: queryRegex(target.q, target.regex, target.case) };
    status.remove();
    const back = h('a', { href: lastListHash, class: 'muted' }, lastListHash.startsWith('#/search') ? '← back to the results' : '← all sessions');
    const heading = h('h1', { tabindex: '-1', id: 'session-title' }, s.title || uri);
    const meta = h('div', { class: 'meta' },
      h('span', { class: 'mono' }, uri),
      h('span', null, s.cwd || ''),
      s.git_branch ? h('span', null, `branch ${s.git_branch}`) : null,
      h('span', null, `${fmtTime(s.created)} → ${fmtTime(s.updated)}`),
      s.models && s.models.length ? h('span', null, s.models.join(', ')) : null,
      h('button', { type: 'button', class: 'link', onclick: () => copyRef(sessionRef(view)) }, 'copy reference'));
    const dirEl = h('div', { id: 'turns', role: 'list', 'aria-label': 'Turns' });
    main.append(back, heading, meta, h('h2', null, `${plural(view.turns.length, 'turn')}`), dirEl);
    renderDirectory(dirEl, 0);
    renderSide(view);
    if (dir.warnings && dir.warnings.length) {
      main.append(h('p', { class: 'warn' }, `${plural(dir.warnings.length, 'warning')} while reading this session`));
    }
    if (target.event !== null || target.locator) {
      await jumpTo(target, token);
    } else {
      heading.focus();
    }
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
    const turns = view.turns;
    const to = Math.min(turns.length, from + DIR_CHUNK);
    for (let i = from; i < to; i++) {
      const t = turns[i];
      const d = h('details', { class: 'turn', id: `turn-${t.number}`, role: 'listitem', dataset: { turn: t.number } }, turnSummary(t));
      d.addEventListener('toggle', () => { if (d.open && !d.dataset.loaded) loadTurn(d, t); });
      dirEl.append(d);
    }
    const old = dirEl.querySelector('.dir-more');
    if (old) old.remove();
    if (to < turns.length) {
      dirEl.append(h('div', { class: 'dir-more' }, h('button', {
        type: 'button',
        onclick: () => { renderDirectory(dirEl, to); },
      }, `Show turns ${turns[to].number}–${turns[Math.min(turns.length, to + DIR_CHUNK) - 1].number} (${turns.length - to} more)`)));
    }
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
    const cls = ['ev', ev.kind];
    if (ev.is_error) cls.push('failed');
    const head = h('div', { class: 'ev-head' },
      h('strong', null, `E${ev.event}`), h('span', null, ev.kind + (ev.subtype ? ` · ${ev.subtype}` : '')),
      ev.tool ? h('span', { class: 'mono' }, ev.tool) : null,
      h('span', null, fmtTime(ev.time)),
      ev.model ? h('span', null, ev.model) : null,
      ev.is_error ? h('span', { class: 'badge error' }, 'error') : null,
      ev.exit_code !== undefined && ev.exit_code !== null ? h('span', null, `exit ${ev.exit_code}`) : null,
      h('button', { type: 'button', class: 'link', onclick: () => copyRef(eventRef(view, ev)) }, 'copy reference'));
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
      data = await get(API.content(view.id), { turns: String(t.number), cursor });
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
          const data = await get(API.content(view.id), { event: evs });
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
        const data = await get(API.content(view.id), { event: `${a}-${b}` });
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
    let n = target.event;
    let ev = null;
    try {
      const params = n !== null ? { event: String(n) } : { locator: target.locator };
      const data = await get(API.content(view.id), params);
      for (const t of data.turns || []) for (const e of t.events || []) if (!ev) ev = e;
    } catch (e) {
      if (token !== renderToken) return;
      main.insertBefore(errorBox(e), document.getElementById('turns'));
      return;
    }
    if (token !== renderToken || !ev) return;
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
    if (token !== renderToken) return;
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

  // ---------- side panel: stats and ledgers ----------

  function renderSide(v) {
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
      data = key === 'stats' ? await get(API.session(v.id)) : await get(API.ledger(v.id, key));
    } catch (e) {
      clear(panel);
      panel.append(errorBox(e));
      return;
    }
    clear(panel);
    const link = (evd) => (evd && evd.event !== undefined
      ? h('a', { href: sessionHash(v.id, { e: evd.event, loc: evd.locator || '' }) }, evd.handle || `E${evd.event}`) : null);
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

  // ---------- copy reference ----------

  function sessionRef(v) {
    return [`session ${v.id}`, v.session.title ? `title   ${v.session.title}` : null, `cli     scry show ${v.id}`]
      .filter(Boolean).join('\n');
  }

  function eventRef(v, ev) {
    const turn = ev.turn ?? (v.turns.find((t) => t.first_event <= ev.event && ev.event <= t.last_event) || {}).number;
    const excerpt = firstLine(ev.text || '', 200);
    return [
      `session ${v.id}`,
      `locator ${ev.locator || '(none)'}`,
      `event   E${ev.event}${turn !== undefined ? ` · T${turn}` : ''}`,
      `excerpt ${excerpt}`,
      ev.locator ? `cli     scry turn ${v.id} --locator '${String(ev.locator).replace(/'/g, "'\\''")}'` : null,
      `cli     scry turn ${v.id} --event ${ev.event}`,
    ].filter(Boolean).join('\n');
  }

  async function copyRef(text) {
    const dlg = document.getElementById('copy-dialog');
    const area = document.getElementById('copy-text');
    area.value = text;
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(text);
        copied = true;
      }
    } catch (_) {
      copied = false;
    }
    toast(copied ? 'Reference copied' : 'Select the reference and copy it');
    lastFocus = document.activeElement;
    if (typeof dlg.showModal === 'function') dlg.showModal();
    area.focus();
    area.select();
  }
  let lastFocus = null;
  document.getElementById('copy-close').addEventListener('click', () => document.getElementById('copy-dialog').close());
  document.getElementById('copy-dialog').addEventListener('close', () => { if (lastFocus) lastFocus.focus(); });

  // ---------- keyboard ----------

  function typing(el) {
    return el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
  }

  /** j / k: next / previous search hit, list row, or turn. */
  function moveFocus(step) {
    const items = Array.from(main.querySelectorAll('a.hit, a.row, details.turn > summary'));
    if (!items.length) return;
    const i = items.indexOf(document.activeElement);
    const next = items[Math.max(0, Math.min(items.length - 1, i < 0 ? (step > 0 ? 0 : items.length - 1) : i + step))];
    next.focus();
    next.scrollIntoView({ block: 'nearest' });
  }

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.getElementById('copy-dialog').open) return;
    if (e.key === '/' && !typing(document.activeElement)) {
      e.preventDefault();
      qInput.focus();
      qInput.select();
      return;
    }
    if (e.key === 'Escape') {
      if (document.activeElement === qInput && qInput.value) { qInput.value = ''; return; }
      if (typing(document.activeElement)) { document.activeElement.blur(); main.focus(); return; }
      const r = parseHash();
      if (r.view === 'session') { e.preventDefault(); location.hash = lastListHash; }
      else if (r.view === 'search') { e.preventDefault(); location.hash = hashFor('/', filterParams()); }
      return;
    }
    if (typing(document.activeElement)) return;
    if (e.key === 'j' || e.key === 'ArrowDown' && document.activeElement && document.activeElement.matches('a.hit, a.row, summary')) {
      e.preventDefault(); moveFocus(1);
    } else if (e.key === 'k' || e.key === 'ArrowUp' && document.activeElement && document.activeElement.matches('a.hit, a.row, summary')) {
      e.preventDefault(); moveFocus(-1);
    } else if (e.key === 'c' && view && parseHash().view === 'session') {
      const art = document.activeElement && document.activeElement.closest ? document.activeElement.closest('article.ev') : null;
      const ev = art ? { event: Number(art.dataset.event), locator: art.dataset.locator, text: (art.querySelector('.text') || {}).textContent } : null;
      copyRef(ev ? eventRef(view, ev) : sessionRef(view));
    }
  });

  document.getElementById('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const q = qInput.value.trim();
    if (!q) return;
    location.hash = hashFor('/search', {
      q, regex: regexBox.checked ? '1' : '', case: caseBox.checked ? '1' : '',
      area: areaSel.value === 'dialogue' ? '' : areaSel.value, ...filterParams(),
    });
  });

  document.getElementById('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    const r = parseHash();
    const q = r.view === 'search' ? r.params.get('q') : '';
    if (q) {
      location.hash = hashFor('/search', {
        q, regex: r.params.get('regex') || '', case: r.params.get('case') || '', area: r.params.get('area') || '', ...filterParams(),
      });
    } else {
      location.hash = hashFor('/', filterParams());
    }
  });
  for (const sel of [fProvider, fSince, fKind]) {
    sel.addEventListener('change', () => document.getElementById('filters').requestSubmit());
  }

  // Focus the view's heading after navigation so keyboard users start at the top of it.
  window.addEventListener('hashchange', () => {
    route();
    setTimeout(() => {
      const hd = main.querySelector('h1[tabindex]');
      if (hd && !main.contains(document.activeElement)) hd.focus({ preventScroll: true });
    }, 0);
  });
  if (config.demo) document.title = 'scry (demo)';
  fScope.value = config.scope;
  route();
}());
