// @ts-check
// The explain trace of a dry run: `PUT /v1/dryrun?explain=true` answers with an `explain` field,
// a tree of nodes (docs/explain.md). Every node has `kind`, `status`, `label` and `children`;
// that is all this view reads (the document's other members are in the raw JSON below it), so
// nodes and statuses added by later schema versions still show. Anything that is not such a tree
// is shown as a plain JSON tree.

import { el, replace } from './dom.js';
import { jsonTree, MAX_TREE_NODES } from './json-tree.js';

/** Tone of each status (docs/explain.md); unknown statuses are neutral. */
const TONES = /** @type {Readonly<Record<string, string>>} */ ({
  applied: 'success',
  matched: 'success',
  rejected: 'error',
  failed: 'error',
  'not-matched': 'warning',
  'not-applied': 'warning',
  skipped: 'muted',
  'not-evaluated': 'muted',
  info: 'neutral',
});

/** Statuses whose nodes start closed: nothing happened there. */
const CLOSED = new Set(['skipped', 'not-evaluated']);

/**
 * @typedef {object} ExplainNode
 * @property {string} kind
 * @property {string} status
 * @property {string} label
 * @property {unknown[]} children
 */

/**
 * @param {unknown} value
 * @returns {value is ExplainNode}
 */
function isNode(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = /** @type {Record<string, unknown>} */ (value);
  return (
    typeof record.kind === 'string' &&
    typeof record.status === 'string' &&
    typeof record.label === 'string' &&
    Array.isArray(record.children)
  );
}

/**
 * Shows `explain` in `target`: a note when the server sent none, the node tree for an explain
 * document, else a plain JSON tree.
 * @param {HTMLElement} target
 * @param {unknown} explain
 */
export function renderExplain(target, explain) {
  if (explain === undefined) {
    replace(
      target,
      el(
        'p',
        'note',
        'This server did not return an explanation for this dry run (it answers ?explain=true with an "explain" field once it supports it).',
      ),
    );
    return;
  }
  if (!isNode(explain)) {
    replace(target, jsonTree(explain, 'explain'));
    return;
  }
  const raw = el('details', 'raw', el('summary', undefined, 'Raw JSON'));
  // Built when first opened: the raw tree can be as large as the trace.
  raw.addEventListener('toggle', () => {
    if (raw.open && raw.childElementCount === 1) raw.append(jsonTree(explain, 'explain'));
  });
  replace(target, nodeTree(explain), raw);
}

/**
 * @typedef {object} NodeTask
 * @property {ExplainNode} node
 * @property {HTMLElement} parent
 * @property {number} depth
 */

/**
 * The tree of explain nodes: one line per node (status badge and label), children nested under
 * a <details> element. Iterative and cut at MAX_TREE_NODES.
 * @param {ExplainNode} root
 * @returns {HTMLElement}
 */
export function nodeTree(root) {
  const list = el('ul', 'tree explain-tree');
  /** @type {NodeTask[]} */
  const stack = [{ node: root, parent: list, depth: 0 }];
  let shown = 0;
  /** @type {NodeTask | undefined} */
  let task;
  while ((task = stack.pop()) !== undefined) {
    if (shown >= MAX_TREE_NODES) {
      list.append(el('li', 'more', `… the tree is cut at ${String(MAX_TREE_NODES)} nodes`));
      break;
    }
    shown++;
    const { node, parent, depth } = task;
    const line = [
      el('span', `badge tone-${TONES[node.status] ?? 'neutral'}`, node.status),
      ' ',
      el('span', 'label', node.label),
    ];
    const item = el('li', `node kind-${node.kind.replace(/[^a-z-]/g, '')}`);
    item.dataset.status = node.status;
    parent.append(item);
    const children = node.children.filter(isNode);
    if (children.length === 0) {
      item.classList.add('leaf');
      item.append(...line);
      continue;
    }
    const details = el('details', undefined, el('summary', undefined, ...line));
    details.open = depth < 2 && !CLOSED.has(node.status);
    const nested = el('ul');
    details.append(nested);
    item.append(details);
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child !== undefined) stack.push({ node: child, parent: nested, depth: depth + 1 });
    }
  }
  return list;
}
