// @ts-check
// What an evaluation marks outside the results panel: rules that failed at run time, marked in
// the ModRules editor like a parse error; notes on context manifests the evaluation did not use,
// under their editors; and results that are stale (for earlier inputs), said in words rather
// than only dimmed.

import { byId, replace } from './dom.js';
import { failureMarks } from './error-marks.js';

/** @typedef {import('./resource-results.js').ResourceResult} ResourceResult */

/** The context editors a note can concern, by the note's first words. */
const NOTE_PLACES = /** @type {const} */ ([
  ['nodeManifest', 'syntheticRefs.node '],
  ['namespaceManifest', 'syntheticRefs.namespace '],
]);

/**
 * @param {readonly ResourceResult[]} read
 * @param {import('./editor.js').YamlEditor} rules the ModRules editor
 */
export function showRunMarks(read, rules) {
  const failures = read.flatMap((result) => result.answer.failures);
  rules.mark(failureMarks(failures, rules.view.state));
  const notes = [...new Set(read.flatMap((result) => result.answer.notes))];
  for (const [place, prefix] of NOTE_PLACES) {
    const note = byId(`${place}-note`, HTMLElement);
    const text = notes.find((item) => item.startsWith(prefix));
    note.hidden = text === undefined;
    note.textContent = text === undefined ? '' : `Not used: ${text.slice(text.indexOf(': ') + 2)}`;
  }
}

/**
 * @param {HTMLElement} results the results section
 * @param {boolean} stale whether the results shown are for earlier inputs
 */
export function markStale(results, stale) {
  results.classList.toggle('stale', stale);
  byId('stale-note', HTMLElement).hidden = !stale;
}

/**
 * The Context panel's count, kept as the user edits: how many of its editors hold something.
 * @param {readonly string[]} texts the Context editors' texts
 * @returns {number}
 */
export function contextCount(texts) {
  const count = texts.filter((text) => text.trim() !== '').length;
  replace(byId('context-count', HTMLElement), count === 0 ? '' : `(${String(count)})`);
  return count;
}
