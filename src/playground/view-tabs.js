// @ts-check
// Inputs and results: side by side on wide screens; on narrow ones (one column) a tab bar shows
// one of the two, so the results are one press away instead of below every editor. The "Skip to
// results" link (and the Results tab) really moves focus to the results; it is an in-page jump,
// never read as a share link.

import { byId, replace } from './dom.js';

/** @typedef {'inputs' | 'results'} View */

const layout = () => byId('layout', HTMLElement);

/**
 * Shows a view (on narrow screens; both are always shown on wide ones) and, if asked, moves focus
 * to it.
 * @param {View} view
 * @param {boolean} focus
 */
export function showView(view, focus) {
  layout().dataset.view = view;
  byId('show-inputs', HTMLButtonElement).setAttribute('aria-pressed', String(view === 'inputs'));
  byId('show-results', HTMLButtonElement).setAttribute('aria-pressed', String(view === 'results'));
  if (!focus) return;
  const target = byId(view, HTMLElement);
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
}

/**
 * The Results tab's short summary (what the results say, seen from the Inputs tab).
 * @param {string} text
 */
export function setTabSummary(text) {
  replace(byId('tab-summary', HTMLElement), text === '' ? '' : `· ${text}`);
}

/** Wires the tabs and the skip link. */
export function startViewTabs() {
  byId('show-inputs', HTMLButtonElement).addEventListener('click', () => {
    showView('inputs', false);
  });
  byId('show-results', HTMLButtonElement).addEventListener('click', () => {
    showView('results', false);
  });
  byId('skip-link', HTMLAnchorElement).addEventListener('click', (event) => {
    // Not a navigation: the fragment stays the share link, focus goes to the results.
    event.preventDefault();
    showView('results', true);
  });
}
