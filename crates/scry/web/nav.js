// scry web: where the page is — the server's settings, the state shared by the views, the
// filter controls, and the location hash that names every view:
//   #/?scope=…&provider=…&since=…&kind=…        the session list (paged)
//   #/search?q=…&regex=1&case=1&area=…&<filters>  search results, grouped by session
//   #/s/<uri>?e=<event>&loc=<locator>&q=…&r=a-b   one session; e/loc jump to an event;
//                                                  rev=N reads its N-th earlier revision
//   #/usage?by=model|provider|project&<filters>    tokens and USD per day (usage.js)

const body = document.body;

/** What the server filled in on <body>: default scope, demo flag, version. */
export const config = {
  scope: body.dataset.scope && !body.dataset.scope.startsWith('{{') ? body.dataset.scope : 'global',
  demo: body.dataset.demo === 'true',
  version: body.dataset.version || '',
};

/** State shared by the views. */
export const state = {
  /** Where Escape and "back" return to from a session. */
  lastListHash: '#/',
  /** Increases per navigation; stale async work checks it and stops. */
  renderToken: 0,
  /** Everything the session view keeps while it is shown (null elsewhere). */
  view: null,
};

export const main = document.getElementById('main');
export const side = document.getElementById('side');

const fScope = document.getElementById('f-scope');
const fProvider = document.getElementById('f-provider');
const fSince = document.getElementById('f-since');
const fKind = document.getElementById('f-kind');

/** The selects that re-apply the filters when changed. */
export const filterSelects = [fProvider, fSince, fKind];

export function currentFilters() {
  return {
    scope: fScope.value.trim() || 'global',
    provider: fProvider.value,
    since: fSince.value,
    kind: fKind.value,
  };
}

export function setFilters(p) {
  fScope.value = p.get('scope') || config.scope || 'global';
  fProvider.value = p.get('provider') || '';
  fSince.value = p.get('since') || '';
  fKind.value = p.get('kind') || '';
}

/** Sets the workspace box to the server's default scope (on load). */
export function setDefaultScope() { fScope.value = config.scope; }

export function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const qi = raw.indexOf('?');
  const path = qi >= 0 ? raw.slice(0, qi) : raw;
  const params = new URLSearchParams(qi >= 0 ? raw.slice(qi + 1) : '');
  if (path.startsWith('/s/')) return { view: 'session', id: decodeURIComponent(path.slice(3)), params };
  if (path === '/search') return { view: 'search', params };
  if (path === '/usage') return { view: 'usage', params };
  return { view: 'list', params };
}

export function hashFor(view, params) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') qs.set(k, v);
  const s = qs.toString();
  return `#${view}${s ? `?${s}` : ''}`;
}

// A session from a team store (`--store`) carries its machine: `machine/uri` names it there
// even when two machines hold the same session id.
export function ref(session, uri) {
  return session && session.machine ? `${session.machine}/${uri}` : uri;
}

export function sessionHash(uri, extra) {
  return hashFor(`/s/${encodeURIComponent(uri)}`, extra || {});
}

/** The request parameters of the session view: `revision` when it reads an earlier one. */
export function withRev(params) {
  const rev = state.view && state.view.rev;
  return rev ? { ...(params || {}), revision: rev } : params;
}

/** The filters as hash parameters (the global scope left out). */
export function filterParams() {
  const f = currentFilters();
  return { scope: f.scope === 'global' ? '' : f.scope, provider: f.provider, since: f.since, kind: f.kind };
}
