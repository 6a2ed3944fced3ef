// @ts-check
// The page's address holds its state: every evaluation writes the editors into the fragment
// (`#v1.…`, replacing the history entry, so Back still leaves the page), and a fragment the page
// did not write itself is read as a share link. Other fragments (`#results`) are not states.
// Copy link and the status line next to it live here too.

import { byId } from './dom.js';
import { decodeState, encodeState, isShareFragment } from './share.js';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */

/** Last fragment written or read, so that only real changes count. */
let savedFragment = '';

/**
 * Writes the state into the address; disables Copy link when it is too large for a link.
 * @param {PlaygroundState} state
 */
export async function saveToFragment(state) {
  const fragment = await encodeState(state);
  const button = byId('copy-link', HTMLButtonElement);
  button.disabled = fragment === undefined;
  button.title = fragment === undefined ? 'Too large to share in a link' : '';
  if (fragment === undefined || fragment === savedFragment) return;
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
