// @ts-check
// Light or dark: the system's choice (prefers-color-scheme) until the user presses the toggle;
// then theirs, remembered in this browser's localStorage (storage refused: for this visit only).
// The page's stylesheet colours follow `<html data-theme>`; without it (before this runs) they
// follow the system's choice too.

import { byId } from './dom.js';

const THEME_KEY = 'kubemod-ts.playground.theme';

/** @typedef {'light' | 'dark'} Theme */

/** @returns {Theme | undefined} the choice stored in this browser */
function storedTheme() {
  try {
    const value = localStorage.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** @param {Theme} theme */
function storeTheme(theme) {
  try {
    localStorage.setItem(THEME_KEY, theme);
  } catch {
    // storage refused (private window, some file:// setups): the choice lasts for this visit
  }
}

/** @param {Theme} theme */
function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  const toggle = byId('theme-toggle', HTMLButtonElement);
  toggle.setAttribute('aria-pressed', String(theme === 'dark'));
}

/** Applies the stored or the system's theme and wires the toggle. */
export function startTheme() {
  const system = window.matchMedia('(prefers-color-scheme: dark)');
  /** @type {Theme | undefined} */
  let chosen = storedTheme();
  applyTheme(chosen ?? (system.matches ? 'dark' : 'light'));
  system.addEventListener('change', () => {
    if (chosen === undefined) applyTheme(system.matches ? 'dark' : 'light');
  });
  byId('theme-toggle', HTMLButtonElement).addEventListener('click', () => {
    chosen = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    storeTheme(chosen);
    applyTheme(chosen);
  });
}
