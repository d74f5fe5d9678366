// scry web: building the page — elements, formatting, the toast, and highlighting matches.
// Text from sessions is only ever put in the page through text nodes (never innerHTML).

/** Builds an element: h('a', {href: '#', class: 'x'}, 'text', child, …). */
export function h(tag, attrs, ...children) {
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

export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

export function errorBox(e) {
  const code = e && e.code ? `${e.code}: ` : '';
  return h('div', { class: 'error-box', role: 'alert' }, code + (e && e.message ? e.message : String(e)));
}

export function fmtTime(iso) {
  if (!iso) return '';
  return String(iso).replace('T', ' ').replace(/(:\d\d)(\.\d+)?Z$/, '$1').slice(0, 16);
}

export function fmtDuration(ms) {
  if (ms === null || ms === undefined) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function firstLine(text, max) {
  const t = String(text || '').split('\n').find((l) => l.trim() !== '') || '';
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function plural(n, one, many) { return `${n} ${n === 1 ? one : (many || `${one}s`)}`; }

let toastTimer = null;

export function toast(msg) {
  const t = document.getElementById('toast');
  t.textContent = msg;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 2500);
}

// ---------- highlighting ----------

/** Code points of a string (the API's character ranges count Unicode scalar values). */
function chars(s) { return Array.from(String(s)); }

/** A fragment of `text` with the [start, end) code-point ranges wrapped in <mark>. */
export function markRanges(text, ranges) {
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
export function queryRegex(q, isRegex, isCase) {
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
export function findRanges(text, re) {
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
