// @ts-check
// The page's address holds its state: every evaluation writes the editors into the fragment
// (`#v1.…`, replacing the history entry, so Back still leaves the page), and a fragment the page
// did not write itself is read as a share link. Other fragments (`#results`) are not states.
// Copy link and the status line next to it live here too.

import { byId } from './dom.js';
import { decodeState, encodeStateSized, isShareFragment } from './share.js';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */

/** Last fragment written or read, so that only real changes count. */
let savedFragment = '';

/**
 * Writes the state into the address. A state too large for a link is not written, and the
 * address loses the fragment it held (an older state: opened elsewhere, it would show something
 * else); Copy link is disabled and the note beside it says why.
 * @param {PlaygroundState} state
 */
export async function saveToFragment(state) {
  const encoded = await encodeStateSized(state);
  const button = byId('copy-link', HTMLButtonElement);
  const note = byId('link-note', HTMLElement);
  button.disabled = !encoded.ok;
  if (!encoded.ok) {
    const size = (/** @type {number} */ chars) => `${String(Math.ceil(chars / 1024))} KiB`;
    note.textContent =
      encoded.what === 'link'
        ? `No share link: the inputs would make a link of ${size(encoded.length)}, and links hold at most ${size(encoded.limit)}. The address no longer holds them; your draft is kept in this browser.`
        : `No share link: the inputs are ${size(encoded.length)} of text, and a link holds at most ${size(encoded.limit)}. The address no longer holds them, and they are too large to keep as a draft in this browser too.`;
    note.hidden = false;
    if (location.hash !== '' && isShareFragment(location.hash.slice(1))) {
      history.replaceState(null, '', location.pathname + location.search);
    }
    savedFragment = '';
    return;
  }
  note.hidden = true;
  note.textContent = '';
  const fragment = encoded.fragment;
  if (fragment === savedFragment) return;
  savedFragment = fragment;
  history.replaceState(null, '', `#${fragment}`);
}

/**
 * The state of the address's share link: undefined when there is none (no fragment, another kind
 * of fragment, or the one this page wrote), else the decoded state or why it cannot be read.
 * @returns {Promise<import('./share.js').DecodeResult | undefined>}
 */
export async function readFragment() {
  const fragment = location.hash.slice(1);
  if (!isShareFragment(fragment) || fragment === savedFragment) return undefined;
  const decoded = await decodeState(fragment);
  if (decoded.ok) savedFragment = fragment;
  return decoded;
}

/**
 * The status line next to Copy link.
 * @param {'busy' | 'ok' | 'error'} state
 * @param {string} text
 */
export function setStatus(state, text) {
  const status = byId('status', HTMLElement);
  status.dataset.state = state;
  status.textContent = text;
}

/** Copies the page's address (its share link) to the clipboard. */
export async function copyLink() {
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus('ok', 'Link copied');
  } catch {
    setStatus('error', 'Copy the link from the address bar');
  }
}
