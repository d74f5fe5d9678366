// scry web: live updates over server-sent events (EventSource on this server only). The open
// session follows `/v1/sessions/{id}/stream` (its new events, as `/events` rows); the list
// follows `/v1/stream` (sessions the index added or saw grow). One of each at most: opening
// another view closes the previous stream. The browser reconnects a dropped stream by itself.

import { API } from './api.js';

let sessionStream = null;
let listStream = null;

function parse(m) {
  try { return JSON.parse(m.data); } catch (_) { return null; }
}

/** Follows session `id`: `onEvents(data)` for each batch of new events, `onGone()` at the end. */
export function followSession(id, onEvents, onGone) {
  stopSession();
  if (typeof EventSource === 'undefined') return;
  const es = new EventSource(API.stream(id));
  // `ready` comes on every (re)connection; after a reconnection, catch up on what was
  // written while the stream was down.
  let connected = false;
  es.addEventListener('ready', (m) => { if (connected) onEvents(parse(m) || {}); connected = true; });
  es.addEventListener('events', (m) => { const d = parse(m); if (d) onEvents(d); });
  es.addEventListener('notice', (m) => { const d = parse(m); if (d) onEvents(d); });
  es.addEventListener('gone', () => { es.close(); if (onGone) onGone(); });
  es.addEventListener('error', (m) => { if (m.data) es.close(); });
  sessionStream = es;
}

export function stopSession() {
  if (sessionStream) sessionStream.close();
  sessionStream = null;
}

/** Follows the session list: `onChange(data)` per added / grown session, `onReset()` when many. */
export function watchList(onChange, onReset) {
  stopList();
  if (typeof EventSource === 'undefined') return;
  const es = new EventSource(API.listStream);
  es.addEventListener('session', (m) => { const d = parse(m); if (d) onChange(d); });
  es.addEventListener('reset', () => { if (onReset) onReset(); });
  listStream = es;
}

export function stopList() {
  if (listStream) listStream.close();
  listStream = null;
}

/** Whether the window is scrolled to (near) the bottom of the page. */
export function atBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
}
