// scry web: the page's entry module (embedded in the binary; no framework, no build step).
// It routes the location hash to a view (nav.js names the hashes) and binds the keyboard and
// the two forms. The views: list.js (sessions), search.js (hits), session.js (one session,
// turn directory first) with side.js (stats, ledgers) and ref.js (copy reference); api.js
// is the door to the `/v1` API, dom.js builds elements and marks matches, live.js follows
// the server-sent event streams (new turns, sessions that grew).

import { renderList } from './list.js';
import { stopList, stopSession } from './live.js';
import { parseHash, hashFor, filterParams, filterSelects, config, main, side, setDefaultScope, setFilters, state } from './nav.js';
import { clear } from './dom.js';
import { copyRef, eventRef, sessionRef } from './ref.js';
import { renderSearch } from './search.js';
import { renderSession } from './session.js';
import { renderUsage } from './usage.js';

const qInput = document.getElementById('q');
const regexBox = document.getElementById('regex');
const caseBox = document.getElementById('case');
const areaSel = document.getElementById('area');

function route() {
  const r = parseHash();
  const token = ++state.renderToken;
  stopSession();
  stopList();
  if (r.view !== 'session') {
    state.lastListHash = location.hash || '#/';
    side.hidden = true;
    clear(side);
  }
  if (r.view === 'session') {
    renderSession(r.id, r.params, token);
  } else if (r.view === 'usage') {
    setFilters(r.params);
    renderUsage(r.params, token);
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
    if (r.view === 'session') { e.preventDefault(); location.hash = state.lastListHash; }
    else if (r.view === 'search') { e.preventDefault(); location.hash = hashFor('/', filterParams()); }
    return;
  }
  if (typing(document.activeElement)) return;
  if (e.key === 'j' || e.key === 'ArrowDown' && document.activeElement && document.activeElement.matches('a.hit, a.row, summary')) {
    e.preventDefault(); moveFocus(1);
  } else if (e.key === 'k' || e.key === 'ArrowUp' && document.activeElement && document.activeElement.matches('a.hit, a.row, summary')) {
    e.preventDefault(); moveFocus(-1);
  } else if (e.key === 'c' && state.view && parseHash().view === 'session') {
    const art = document.activeElement && document.activeElement.closest ? document.activeElement.closest('article.ev') : null;
    const ev = art ? { event: Number(art.dataset.event), locator: art.dataset.locator, text: (art.querySelector('.text') || {}).textContent } : null;
    copyRef(ev ? eventRef(state.view, ev) : sessionRef(state.view));
  }
});

// ---------- forms ----------

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
for (const sel of filterSelects) {
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
setDefaultScope();
route();
