// @ts-check
// A result per resource: when the resource editor holds several documents, the answer is
// `{results: [{kind?, name?, namespace?, ...answer}]}`. A list of the resources with their
// outcome; choosing one shows its result in the panels below.

import { byId, el, replace } from './dom.js';
import { outcomeOf, readAnswer, showAnswer } from './results.js';

/** @typedef {import('./results.js').DryRunAnswer} DryRunAnswer */

/**
 * @typedef {object} ResourceResult
 * @property {string} label
 * @property {DryRunAnswer} answer
 */

/**
 * The results of an answer: one for a single resource, one per resource for `{results}`;
 * undefined when the body is neither.
 * @param {unknown} body
 * @returns {ResourceResult[] | undefined}
 */
export function readResults(body) {
  if (typeof body !== 'object' || body === null) return undefined;
  const { results } = /** @type {Record<string, unknown>} */ (body);
  if (!Array.isArray(results)) {
    const answer = readAnswer(body);
    return answer === undefined ? undefined : [{ label: '', answer }];
  }
  /** @type {ResourceResult[]} */
  const read = [];
  for (const [i, result] of results.entries()) {
    const answer = readAnswer(result);
    if (answer === undefined) return undefined;
    read.push({ label: labelOf(result, i), answer });
  }
  return read.length === 0 ? undefined : read;
}

/**
 * @param {unknown} result
 * @param {number} index
 * @returns {string}
 */
function labelOf(result, index) {
  const record = /** @type {Record<string, unknown>} */ (result);
  const words = [record.kind, record.name].filter(
    (word) => typeof word === 'string' && word !== '',
  );
  return `${String(index + 1)}. ${words.length === 0 ? 'resource' : words.join(' ')}`;
}

/** Index of the resource shown, kept while the user edits. */
let chosen = 0;

/**
 * Shows the results: the list (for several) and the chosen one's panels.
 * @param {readonly ResourceResult[]} results
 * @returns {string} the overall summary, for the Results tab
 */
export function showResults(results) {
  const list = byId('resource-results', HTMLElement);
  if (chosen >= results.length) chosen = 0;
  const shown = results[chosen] ?? results[0];
  if (shown === undefined) return '';
  showAnswer(shown.answer);
  if (results.length === 1) {
    list.hidden = true;
    list.replaceChildren();
    return outcomeOf(shown.answer).text;
  }
  replace(
    list,
    ...results.map((result, i) => {
      const outcome = outcomeOf(result.answer);
      const button = el(
        'button',
        'resource-choice',
        el('span', 'resource-name', result.label),
        el('span', `outcome outcome-${outcome.kind}`, outcome.text),
      );
      button.type = 'button';
      button.setAttribute('aria-pressed', String(i === chosen));
      button.addEventListener('click', () => {
        chosen = i;
        showResults(results);
        const again = list.querySelectorAll('button')[i];
        if (again instanceof HTMLElement) again.focus();
      });
      return el('li', undefined, button);
    }),
  );
  list.hidden = false;
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const result of results) {
    const kind = outcomeOf(result.answer).kind;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const parts = [...counts].map(([kind, count]) => `${String(count)} ${kind}`);
  const summary = `${String(results.length)} resources: ${parts.join(', ')}`;
  replace(byId('summary', HTMLElement), `${summary} · showing ${shown.label}`);
  return summary;
}
