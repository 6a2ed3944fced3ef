// @ts-check
// A collapsible tree of any JSON value, built from text nodes with <details> elements (natively
// keyboard-operable). Built iteratively and bounded in nodes, so a deep or huge value cannot
// freeze the page.

import { el } from './dom.js';

/** Most entries one tree shows; the rest are summarised. */
export const MAX_TREE_NODES = 3000;
/** Levels open at first. */
const OPEN_LEVELS = 2;
/** Longest string shown whole. */
const MAX_STRING_CHARS = 2000;

/**
 * @typedef {object} TreeTask
 * @property {unknown} value
 * @property {string | undefined} label key or index; undefined for the root
 * @property {HTMLElement} parent list the entry goes into
 * @property {number} depth
 */

/**
 * A tree for `value`, whose top level is labelled `rootLabel`.
 * @param {unknown} value
 * @param {string} [rootLabel]
 * @returns {HTMLElement}
 */
export function jsonTree(value, rootLabel) {
  const root = el('ul', 'tree');
  /** @type {TreeTask[]} */
  const stack = [{ value, label: rootLabel, parent: root, depth: 0 }];
  let shown = 0;
  /** @type {TreeTask | undefined} */
  let task;
  while ((task = stack.pop()) !== undefined) {
    if (shown >= MAX_TREE_NODES) {
      root.append(el('li', 'more', `… the tree is cut at ${String(MAX_TREE_NODES)} entries`));
      break;
    }
    shown++;
    const item = el('li');
    task.parent.append(item);
    const entries = entriesOf(task.value);
    if (entries === undefined) {
      if (task.label !== undefined) item.append(el('span', 'key', task.label), ': ');
      item.append(leaf(task.value));
      continue;
    }
    const details = el('details');
    details.open = task.depth < OPEN_LEVELS;
    const count = Array.isArray(task.value)
      ? `[${String(entries.length)}]`
      : `{${String(entries.length)}}`;
    details.append(
      el(
        'summary',
        undefined,
        task.label === undefined ? '' : el('span', 'key', task.label),
        task.label === undefined ? count : ` ${count}`,
      ),
    );
    const list = el('ul');
    details.append(list);
    item.append(details);
    // Pushed in reverse so that entries come out (and are appended) in order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry === undefined) continue;
      stack.push({ value: entry[1], label: entry[0], parent: list, depth: task.depth + 1 });
    }
  }
  return root;
}

/**
 * The labelled children of an array or object; undefined for a scalar.
 * @param {unknown} value
 * @returns {[string, unknown][] | undefined}
 */
function entriesOf(value) {
  if (Array.isArray(value)) return value.map((item, index) => [String(index), item]);
  if (typeof value === 'object' && value !== null) return Object.entries(value);
  return undefined;
}

/**
 * @param {unknown} value
 * @returns {HTMLElement}
 */
export function leaf(value) {
  if (typeof value === 'string') {
    const text =
      value.length > MAX_STRING_CHARS
        ? `${value.slice(0, MAX_STRING_CHARS)}… (${String(value.length)} characters)`
        : value;
    return el('span', 'string', JSON.stringify(text));
  }
  if (typeof value === 'number') return el('span', 'number', String(value));
  if (typeof value === 'boolean') return el('span', 'boolean', String(value));
  return el('span', 'null', 'null');
}
