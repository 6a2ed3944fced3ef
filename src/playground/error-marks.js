// @ts-check
// Reads a dry-run error (`{error, code}` of a 400) into entries placed in the editors: a YAML
// syntax error at its line and column (with an excerpt of the text), a ModRule field error at the
// field its path names in the n-th rule, a select expression's parse error at its column inside
// the value. The answer names the field first (`modRules[1]: ModRule default/x is invalid:
// spec.match[0].select: …`); a cluster object's error at the field it names in the n-th document
// (`cluster[2].answers[0].key: …`); an error no editor holds (the namespace, the operation) has no
// place.

import {
  documentContents,
  locatePath,
  offsetInScalar,
  offsetOf,
  pathSegments,
} from './yaml-locate.js';

/** @typedef {import('@codemirror/state').EditorState} EditorState */
/** @typedef {'rules' | 'resource' | 'old' | 'namespaceManifest' | 'nodeManifest' | 'cluster' | 'request'} Place */

/**
 * @typedef {object} ErrorEntry
 * @property {Place | undefined} place the input it concerns (undefined: none)
 * @property {string} text what the list shows
 * @property {number | undefined} from offset in that editor's text
 * @property {number | undefined} to
 * @property {string | undefined} excerpt the lines around a syntax error, with a caret
 */

/** The field an error starts with → where it is shown. Longest names first. */
const PLACES = /** @type {const} */ ([
  [/^oldResourceManifest\b/, 'old'],
  [/^resourceManifest\b/, 'resource'],
  [/^modRules\b/, 'rules'],
  [/^syntheticRefs\.namespace\b/, 'namespaceManifest'],
  [/^syntheticRefs\.node\b/, 'nodeManifest'],
  [/^cluster\b/, 'cluster'],
  [/^(namespace|operation)\b/, 'request'],
]);

const FIELD_ERROR = /^((?:apiVersion|kind|metadata|spec)(?:\.[\w-]+|\[[^\]]*\])*): (.*)$/s;
const FIELD_SPLIT = /; (?=(?:apiVersion|kind|metadata|spec)(?:\.[\w-]+|\[[^\]]*\])*: )/;
const INVALID_RULE = /^modRules\[(\d+)\]: (ModRule \S+ is invalid): (.*)$/s;
const CLUSTER_FIELD = /^cluster\[(\d+)\]((?:\.[\w-]+|\[\d+\])*): /;
const LINE_COLUMN = /\((\d+):(\d+)\)\s*$/;
const SELECT_POSITION = /\bat (position|column) (\d+)\b/;

/**
 * @param {string} message the answer's `error`
 * @param {(place: Place) => EditorState | undefined} stateOf the editor of a place, if it has one
 * @returns {ErrorEntry[]}
 */
export function readErrors(message, stateOf) {
  const place = placeOf(message);
  const state = place === undefined ? undefined : stateOf(place);
  const [first = ''] = message.split('\n');
  const syntax = LINE_COLUMN.exec(first);
  if (syntax !== null && state !== undefined) {
    const line = Number(syntax[1]);
    const column = Number(syntax[2]);
    const at = offsetOf(state, line, column);
    return [
      {
        place,
        text: first,
        from: at,
        to: Math.max(at, state.doc.lineAt(at).to),
        excerpt: excerpt(state, line, column),
      },
    ];
  }
  return message
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => readLine(line, stateOf));
}

/**
 * @param {string} line
 * @param {(place: Place) => EditorState | undefined} stateOf
 * @returns {ErrorEntry[]}
 */
function readLine(line, stateOf) {
  const place = placeOf(line);
  const state = place === undefined ? undefined : stateOf(place);
  const object = CLUSTER_FIELD.exec(line);
  if (object !== null && state !== undefined) {
    const content = documentContents(state)[Number(object[1])];
    if (content !== undefined) {
      const located = locatePath(state, content, pathSegments(object[2] ?? ''));
      return [{ place, text: line, from: located.from, to: located.to, excerpt: undefined }];
    }
  }
  const invalid = INVALID_RULE.exec(line);
  if (invalid === null || state === undefined) {
    return [
      { place, text: line, from: state === undefined ? undefined : 0, to: 0, excerpt: undefined },
    ];
  }
  const index = Number(invalid[1]);
  const rule = invalid[2] ?? '';
  const content = documentContents(state)[index];
  return (invalid[3] ?? '').split(FIELD_SPLIT).map((part) => {
    const text = `modRules[${String(index)}]: ${rule}: ${part}`;
    const field = FIELD_ERROR.exec(part);
    if (content === undefined || field === null) {
      return { place, text, from: content?.from ?? 0, to: content?.from ?? 0, excerpt: undefined };
    }
    const located = locatePath(state, content, pathSegments(field[1] ?? ''));
    const position = SELECT_POSITION.exec(field[2] ?? '');
    if (position !== null && located.complete && located.value !== undefined) {
      // `at position n` counts from 0, `at column n` from 1.
      const column = Number(position[2]) - (position[1] === 'column' ? 1 : 0);
      const at = offsetInScalar(state, located.value, column);
      return { place, text, from: at, to: Math.min(at + 1, located.value.to), excerpt: undefined };
    }
    return { place, text, from: located.from, to: located.to, excerpt: undefined };
  });
}

/**
 * @param {string} text
 * @returns {Place | undefined}
 */
function placeOf(text) {
  for (const [pattern, place] of PLACES) if (pattern.test(text)) return place;
  return undefined;
}

/**
 * The error's line and the one before it, numbered, with a caret under the column.
 * @param {EditorState} state
 * @param {number} line
 * @param {number} column
 * @returns {string}
 */
function excerpt(state, line, column) {
  const last = Math.max(1, Math.min(line, state.doc.lines));
  const first = Math.max(1, last - 2);
  const width = String(last).length;
  const lines = [];
  for (let number = first; number <= last; number++) {
    lines.push(`${String(number).padStart(width)} | ${state.doc.line(number).text}`);
  }
  lines.push(`${' '.repeat(width)} | ${' '.repeat(Math.max(0, column - 1))}^`);
  return lines.join('\n');
}

/**
 * Where a rule that failed at run time (a template error, a work limit) is in the ModRules text:
 * the field the failure names (`spec.patch[1].value`) in the document whose `metadata.name` is
 * the rule's; the document's start when the field is not found; nothing when no document has
 * that name.
 * @param {readonly { rule: string, field: string, message: string }[]} failures
 * @param {EditorState} state the ModRules editor's
 * @returns {import('./editor.js').EditorMark[]}
 */
export function failureMarks(failures, state) {
  const contents = documentContents(state);
  /** @type {import('./editor.js').EditorMark[]} */
  const marks = [];
  for (const failure of failures) {
    const name = failure.rule.slice(failure.rule.indexOf('/') + 1);
    const content = contents.find((node) => {
      const found = locatePath(state, node, ['metadata', 'name']);
      if (!found.complete || found.value === undefined) return false;
      const text = state.sliceDoc(found.value.from, found.value.to);
      return text.replace(/^(["'])(.*)\1$/s, '$2') === name;
    });
    if (content === undefined) continue;
    const located = locatePath(state, content, pathSegments(failure.field));
    marks.push({
      from: located.from,
      to: Math.max(located.from, located.to),
      message: `${failure.rule} failed: ${failure.message}`,
    });
  }
  return marks;
}
