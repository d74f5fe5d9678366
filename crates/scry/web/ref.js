// scry web: "copy reference" — a session's or an event's reference (uri, locator, excerpt and
// the CLI commands that open it), copied to the clipboard when allowed and shown in a dialog.

import { firstLine, toast } from './dom.js';

export function sessionRef(v) {
  return [`session ${v.id}`, v.session.title ? `title   ${v.session.title}` : null, `cli     scry show ${v.id}`]
    .filter(Boolean).join('\n');
}

export function eventRef(v, ev) {
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

const dialog = document.getElementById('copy-dialog');
let lastFocus = null;

export async function copyRef(text) {
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
  if (typeof dialog.showModal === 'function') dialog.showModal();
  area.focus();
  area.select();
}

document.getElementById('copy-close').addEventListener('click', () => dialog.close());
dialog.addEventListener('close', () => { if (lastFocus) lastFocus.focus(); });
