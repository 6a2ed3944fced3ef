// @ts-check
// Shows a dry-run error: each entry listed under the input it concerns and marked in that
// editor at its line and column; an entry's "line, column" button moves the cursor to the mark.
// An error no input holds goes above the results. The first error is scrolled into view.

import { byId, el, replace } from './dom.js';
import { readErrors } from './error-marks.js';

/** @typedef {import('./editor.js').YamlEditor} YamlEditor */
/** @typedef {import('./error-marks.js').Place} Place */

/** Places with an error list, in page order. */
const PLACES = /** @type {const} */ ([
  'rules',
  'request',
  'resource',
  'namespaceManifest',
  'nodeManifest',
  'old',
  'cluster',
]);

/**
 * @param {Partial<Record<Place, YamlEditor>>} editors
 * @param {readonly HTMLElement[]} requestInputs the namespace field and the operation select
 */
export function errorsView(editors, requestInputs) {
  function clear() {
    for (const place of PLACES) {
      const list = byId(`${place}-errors`, HTMLElement);
      list.hidden = true;
      list.replaceChildren();
      editors[place]?.mark([]);
    }
    const general = byId('general-error', HTMLElement);
    general.hidden = true;
    general.replaceChildren();
    for (const input of requestInputs) input.removeAttribute('aria-invalid');
  }

  /**
   * @param {string} message
   * @param {string | undefined} code
   * @returns {HTMLElement} the first error shown
   */
  function show(message, code) {
    clear();
    const entries = readErrors(message, (place) => editors[place]?.view.state);
    /** @type {Map<Place | undefined, HTMLElement[]>} */
    const items = new Map();
    /** @type {Map<Place, import('./editor.js').EditorMark[]>} */
    const marks = new Map();
    for (const entry of entries) {
      const editor = entry.place === undefined ? undefined : editors[entry.place];
      const item = el('li', 'error-entry');
      if (editor !== undefined && entry.place !== undefined && entry.from !== undefined) {
        const from = entry.from;
        const line = editor.view.state.doc.lineAt(from);
        const jump = el(
          'button',
          'error-jump',
          `Line ${String(line.number)}, column ${String(from - line.from + 1)}`,
        );
        jump.type = 'button';
        jump.addEventListener('click', () => {
          editor.reveal(from);
        });
        item.append(jump);
        const list = marks.get(entry.place) ?? [];
        list.push({ from, to: entry.to ?? from, message: entry.text });
        marks.set(entry.place, list);
      }
      item.append(el('span', 'error-text', entry.text));
      if (entry.excerpt !== undefined) item.append(el('pre', 'excerpt', entry.excerpt));
      const placed = items.get(entry.place) ?? [];
      placed.push(item);
      items.set(entry.place, placed);
    }
    for (const [place, list] of marks) editors[place]?.mark(list);
    /** @type {HTMLElement | undefined} */
    let first;
    for (const place of PLACES) {
      const placed = items.get(place);
      if (placed === undefined) continue;
      const box = byId(`${place}-errors`, HTMLElement);
      replace(box, ...placed);
      box.hidden = false;
      first ??= box;
      if (place === 'request')
        for (const input of requestInputs) input.setAttribute('aria-invalid', 'true');
    }
    const general = byId('general-error', HTMLElement);
    const other = items.get(undefined);
    if (other !== undefined || first === undefined) {
      replace(
        general,
        el('strong', undefined, code === undefined ? 'Error' : `Error ${code}`),
        el('ul', undefined, ...(other ?? [el('li', 'error-text', message)])),
      );
      general.hidden = false;
      first ??= general;
    } else {
      first.prepend(el('li', 'error-code', code === undefined ? 'Error' : `Error ${code}`));
    }
    const context = byId('context', HTMLDetailsElement);
    if (first.closest('#context') !== null) context.open = true;
    return first;
  }

  return { show, clear };
}
