// scry web: the session list view — newest first, filtered, paged by the API's cursor.

import { API, get } from './api.js';
import { clear, errorBox, fmtTime, h, plural } from './dom.js';
import { watchList } from './live.js';
import { currentFilters, main, ref, sessionHash, state } from './nav.js';

const PAGE = 50; // sessions per list page

/** The row's cost (its folded children's included), or '' when unknown or nothing priced. */
function costText(c) {
  if (!c || typeof c.usd !== 'number') return '';
  return c.usd > 0 && c.usd < 0.01 ? `$${c.usd.toFixed(4)}` : `$${c.usd.toFixed(2)}`;
}

function sessionRow(s) {
  const kids = s.children ? Object.values(s.children).reduce((a, b) => a + (Number(b) || 0), 0) : 0;
  const failed = Number(s.failures) || 0;
  const cost = costText(s.cost);
  return h('li', null,
    h('a', { class: 'row', href: sessionHash(ref(s, s.uri)), dataset: { uri: s.uri } },
      h('span', { class: 'prov' }, s.provider, s.kind && s.kind !== 'main' ? ` · ${s.kind}` : ''),
      h('span', { class: 'title' }, s.title || s.id,
        s.live === false ? [' ', h('span', { class: 'badge deleted', title: 'The agent deleted the source; read from the index until `scry index --prune`' },
          s.deleted ? `deleted ${String(s.deleted).slice(0, 10)}` : 'deleted')] : null,
        failed ? [' ', h('span', { class: 'badge failed', title: `${plural(failed, 'tool result')} failed${kids ? ' (folded children included)' : ''}` },
          `✗ ${failed}`)] : null),
      h('span', { class: 'when' }, fmtTime(s.updated || s.created)),
      h('span', { class: 'sub' }, s.cwd || '', kids ? ` · ${plural(kids, 'child session')}` : '',
        cost ? ` · ${cost}` : '',
        s.live === false ? ' · source gone (index only)' : '')));
}

export async function renderList(token) {
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
      if (token !== state.renderToken) return;
      status.replaceWith(errorBox(e));
      return;
    }
    if (token !== state.renderToken) return;
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
  if (token !== state.renderToken) return;
  let added = 0;
  const fresh = h('button', { type: 'button', class: 'link live-added', hidden: true, onclick: () => renderList(++state.renderToken) });
  status.after(fresh);
  watchList((d) => {
    if (token !== state.renderToken || !d.session) return;
    const a = Array.from(list.querySelectorAll('a.row')).find((x) => x.dataset.uri === d.session.uri);
    if (a) {
      a.classList.add('live');
      if (d.active) a.classList.add('active');
      const when = a.querySelector('.when');
      if (when) when.textContent = fmtTime(d.session.updated || d.session.created);
      a.title = d.active ? 'active: written to in the last minutes' : 'updated since the list loaded';
    } else if (d.change === 'added') {
      added += 1;
      fresh.textContent = `${plural(added, 'new session')} — show`;
      fresh.hidden = false;
    }
  }, () => { fresh.textContent = 'Sessions changed — reload the list'; fresh.hidden = false; });
}

/** Offers every workspace seen so far in the workspace box's suggestions. */
function fillScopes(scopes) {
  const dl = document.getElementById('scopes');
  const have = new Set(Array.from(dl.options).map((o) => o.value));
  for (const s of scopes) if (!have.has(s)) dl.append(h('option', { value: s }));
}
