// scry web: the search view — hits grouped by session, excerpts with the matches marked; each
// hit links to its session with the exact event (number and locator) to jump to.

import { API, get } from './api.js';
import { clear, errorBox, fmtTime, h, markRanges, plural } from './dom.js';
import { currentFilters, main, ref, sessionHash, state } from './nav.js';

const SEARCH_PAGE = 20; // sessions per search page

function hitLink(hit, q, flags, session) {
  const extra = { q, regex: flags.regex ? '1' : '', case: flags.case ? '1' : '' };
  if (hit.event !== null && hit.event !== undefined) extra.e = hit.event;
  if (hit.locator) extra.loc = hit.locator;
  if (hit.field) extra.f = hit.field;
  // A hit in an earlier revision (issue 20): text a rewrite of the source removed.
  if (hit.superseded && hit.revision) extra.rev = hit.revision;
  const where = [];
  if (hit.turn !== null && hit.turn !== undefined) where.push(`T${hit.turn}`);
  if (hit.event !== null && hit.event !== undefined) where.push(`E${hit.event}`);
  where.push(hit.kind || hit.field || '');
  if (hit.time) where.push(fmtTime(hit.time));
  if (hit.match_count > 1) where.push(`${hit.match_count} matches`);
  if (hit.superseded) where.push(`superseded (revision ${hit.revision})`);
  const start = hit.excerpt_start || 0;
  const local = (hit.ranges || []).map(([a, b]) => [a - start, b - start]);
  const ex = h('div', { class: 'excerpt' });
  ex.append(start > 0 ? '…' : '', markRanges(hit.excerpt || '', local));
  return h('a', { class: 'hit', href: sessionHash(ref(session, hit.uri), extra), dataset: { uri: hit.uri, event: hit.event } },
    h('div', { class: 'where' }, where.filter(Boolean).join(' · '), hit.field && hit.field !== 'text' ? ` · in ${hit.field}` : ''),
    ex);
}

export async function renderSearch(params, token) {
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
      if (token !== state.renderToken) return;
      status.replaceWith(errorBox(e));
      return;
    }
    if (token !== state.renderToken) return;
    const ms = Math.round(performance.now() - t0);
    for (const g of data.sessions || []) {
      const s = g.session || {};
      const uri = s.uri || (g.hits && g.hits[0] && g.hits[0].uri) || '';
      const list = h('ul', { class: 'hits' });
      for (const hit of g.hits || []) list.append(h('li', null, hitLink(hit, q, flags, s)));
      const moreHits = g.has_more_hits ? h('p', { class: 'muted' }, `${g.hit_count - (g.hits || []).length} more hits in this session`) : null;
      results.append(h('section', { class: 'group' },
        h('h2', null, h('a', { href: sessionHash(ref(s, uri), { q, regex: flags.regex ? '1' : '', case: flags.case ? '1' : '' }) }, s.title || uri)),
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
