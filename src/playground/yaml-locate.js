// @ts-check
// Finds places in an editor's YAML text from what an error names: a line and column, a document
// (the n-th non-empty one, as `modRules[n]` counts them) and a field path in it
// (`spec.match[0].select`). Reads CodeMirror's YAML syntax tree, which is built even for text
// that is not valid YAML; a path that goes further than the text does stops at the deepest field
// found.

import { ensureSyntaxTree } from '@codemirror/language';

/** @typedef {import('@codemirror/state').EditorState} EditorState */
/** @typedef {import('@lezer/common').SyntaxNode} SyntaxNode */

/** Longest time spent parsing for a location, in ms (the editor parses as one types anyway). */
const PARSE_BUDGET_MS = 200;

/** Nodes of a document that are not its content. */
const NOT_CONTENT = new Set(['DirectiveEnd', 'DocEnd', 'Comment', 'Directive']);

/**
 * The offset of a 1-based line and column, clamped to the text.
 * @param {EditorState} state
 * @param {number} line
 * @param {number} column
 * @returns {number}
 */
export function offsetOf(state, line, column) {
  const lines = state.doc.lines;
  const info = state.doc.line(Math.max(1, Math.min(line, lines)));
  return Math.min(info.from + Math.max(0, column - 1), info.to);
}

/**
 * The content node of each non-empty document of the text, in order.
 * @param {EditorState} state
 * @returns {SyntaxNode[]}
 */
export function documentContents(state) {
  const tree = ensureSyntaxTree(state, state.doc.length, PARSE_BUDGET_MS);
  if (tree === null) return [];
  /** @type {SyntaxNode[]} */
  const contents = [];
  for (let doc = tree.topNode.firstChild; doc !== null; doc = doc.nextSibling) {
    if (doc.name !== 'Document') continue;
    for (let child = doc.firstChild; child !== null; child = child.nextSibling) {
      if (!NOT_CONTENT.has(child.name)) {
        contents.push(child);
        break;
      }
    }
  }
  return contents;
}

/**
 * Each non-empty document's text, and a label (`kind name`) from its kind and metadata.name.
 * @param {EditorState} state
 * @returns {{ text: string, label: string }[]}
 */
export function splitDocuments(state) {
  return documentContents(state).map((node) => ({
    text: state.sliceDoc(node.from, node.to),
    label: [['kind'], ['metadata', 'name']]
      .map((path) => {
        const found = locatePath(state, node, path);
        return found.complete && found.value !== undefined
          ? state.sliceDoc(found.value.from, found.value.to)
          : '';
      })
      .filter((word) => word !== '')
      .join(' '),
  }));
}

/**
 * `spec.match[0].select` → ['spec', 'match', 0, 'select']; `a[b.c]` → ['a', 'b.c'].
 * @param {string} path
 * @returns {(string | number)[]}
 */
export function pathSegments(path) {
  /** @type {(string | number)[]} */
  const segments = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    const bracket = match[2];
    if (bracket === undefined) segments.push(match[1] ?? '');
    else
      segments.push(/^\d+$/.test(bracket) ? Number(bracket) : bracket.replace(/^["']|["']$/g, ''));
  }
  return segments;
}

/**
 * @typedef {object} Located
 * @property {number} from
 * @property {number} to
 * @property {SyntaxNode | undefined} value the value node of the last field found, if any
 * @property {boolean} complete whether the whole path was found
 */

/**
 * Where a field path is in a document's content: the key of its last field (or the sequence item).
 * @param {EditorState} state
 * @param {SyntaxNode} content
 * @param {readonly (string | number)[]} segments
 * @returns {Located}
 */
export function locatePath(state, content, segments) {
  /** @type {Located} */
  let found = { from: content.from, to: content.from, value: content, complete: true };
  let current = /** @type {SyntaxNode | undefined} */ (content);
  for (const segment of segments) {
    const next = current === undefined ? undefined : step(state, current, segment);
    if (next === undefined) return { ...found, complete: false };
    found = { ...next, complete: true };
    current = next.value;
  }
  return found;
}

/**
 * @param {EditorState} state
 * @param {SyntaxNode} node a mapping or sequence
 * @param {string | number} segment
 * @returns {Omit<Located, 'complete'> | undefined}
 */
function step(state, node, segment) {
  if (typeof segment === 'number') {
    let index = 0;
    for (let item = node.firstChild; item !== null; item = item.nextSibling) {
      if (item.name !== 'Item') continue;
      if (index++ === segment) {
        const value = item.lastChild ?? undefined;
        const start = value?.from ?? item.from;
        return { from: start, to: lineEnd(state, start), value };
      }
    }
    return undefined;
  }
  for (let pair = node.firstChild; pair !== null; pair = pair.nextSibling) {
    if (pair.name !== 'Pair') continue;
    const key = pair.getChild('Key');
    if (key === null || unquote(state.sliceDoc(key.from, key.to)) !== segment) continue;
    const value = pair.lastChild !== null && pair.lastChild !== key ? pair.lastChild : undefined;
    return {
      from: key.from,
      to: value !== undefined && value.name !== ':' ? lineEnd(state, key.from) : key.to,
      value: value?.name === ':' ? undefined : value,
    };
  }
  return undefined;
}

/**
 * The offset inside a scalar value of a 0-based position in its string (quotes skipped; exact for
 * text without escapes).
 * @param {EditorState} state
 * @param {SyntaxNode} value
 * @param {number} position
 * @returns {number}
 */
export function offsetInScalar(state, value, position) {
  const text = state.sliceDoc(value.from, value.to);
  const quoted = value.name === 'QuotedLiteral' || /^["']/.test(text);
  return Math.min(value.from + (quoted ? 1 : 0) + position, value.to);
}

/**
 * @param {EditorState} state
 * @param {number} offset
 * @returns {number}
 */
function lineEnd(state, offset) {
  return state.doc.lineAt(offset).to;
}

/**
 * @param {string} text
 * @returns {string}
 */
function unquote(text) {
  return text.replace(/^(["'])(.*)\1$/s, '$2');
}
