// @ts-check
// Reads a /v1/dryrun answer and shows it: summary, rejections, rule failures, diff, patched YAML,
// JSON patch and the explain tree. Text only (see dom.js).

import { byId, el, replace } from './dom.js';
import { renderExplain } from './explain-view.js';

/**
 * @typedef {object} RuleFailure
 * @property {string} rule
 * @property {string} field
 * @property {string} code
 * @property {string} message
 */

/**
 * @typedef {object} DryRunAnswer
 * @property {unknown[]} patch
 * @property {string} diff
 * @property {string[]} rejections
 * @property {RuleFailure[]} failures
 * @property {string[]} objectProblems what the API server would refuse in the result
 * @property {string[]} notes inputs the evaluation did not use, and why
 * @property {string | undefined} patchedYaml
 * @property {unknown} explain undefined when the server sent none
 */

/**
 * The answer's fields, checked; undefined when the body is not a dry-run answer.
 * @param {unknown} body
 * @returns {DryRunAnswer | undefined}
 */
export function readAnswer(body) {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = /** @type {Record<string, unknown>} */ (body);
  const { patch, diff, rejections, failures, patchedYaml, explain, objectProblems, notes } = record;
  if (!Array.isArray(patch) || typeof diff !== 'string' || !Array.isArray(rejections)) {
    return undefined;
  }
  return {
    patch,
    diff,
    rejections: rejections.map(String),
    failures: Array.isArray(failures) ? failures.map(readFailure) : [],
    objectProblems: Array.isArray(objectProblems) ? objectProblems.map(String) : [],
    notes: Array.isArray(notes) ? notes.map(String) : [],
    patchedYaml: typeof patchedYaml === 'string' ? patchedYaml : undefined,
    explain,
  };
}

/**
 * @param {unknown} value
 * @returns {RuleFailure}
 */
function readFailure(value) {
  const record =
    typeof value === 'object' && value !== null
      ? /** @type {Record<string, unknown>} */ (value)
      : {};
  const text = (/** @type {unknown} */ field) => (typeof field === 'string' ? field : '');
  return {
    rule: text(record.rule),
    field: text(record.field),
    code: text(record.code),
    message: text(record.message),
  };
}

/**
 * Shows an answer in the results panel.
 * @param {DryRunAnswer} answer
 */
export function showAnswer(answer) {
  showSummary(answer);

  replace(byId('rejections-count', HTMLElement), `(${String(answer.rejections.length)})`);
  replace(
    byId('rejections', HTMLElement),
    ...(answer.rejections.length === 0
      ? [el('li', 'empty', 'None: the request is allowed.')]
      : answer.rejections.map(rejectionItem)),
  );

  replace(byId('failures-count', HTMLElement), `(${String(answer.failures.length)})`);
  replace(
    byId('failures', HTMLElement),
    ...(answer.failures.length === 0
      ? [el('li', 'empty', 'None.')]
      : answer.failures.map((failure) =>
          el(
            'li',
            undefined,
            el('span', 'rule', failure.rule),
            ` ${failure.field}: ${failure.message}`,
            el('span', 'code-tag', failure.code),
          ),
        )),
  );

  showList('problems', answer.objectProblems);
  showList('notes', answer.notes);
  showDiff(answer.diff);
  replace(
    byId('patched', HTMLElement),
    answer.patchedYaml ?? '# this server does not return the patched YAML',
  );
  replace(byId('patch-count', HTMLElement), `(${String(answer.patch.length)})`);
  replace(byId('patch', HTMLElement), JSON.stringify(answer.patch, null, 2));
  renderExplain(byId('explain', HTMLElement), answer.explain);
}

/**
 * `<ns>/<name>: "<message>"` (KubeMod's format) as the rule in bold and its message.
 * @param {string} rejection
 * @returns {HTMLLIElement}
 */
function rejectionItem(rejection) {
  const match = /^([^\s:]+\/[^\s:]+)(?:: (.*))?$/s.exec(rejection);
  if (match === null) return el('li', undefined, rejection);
  const [, rule = '', message] = match;
  return el('li', undefined, el('span', 'rule', rule), message === undefined ? '' : `: ${message}`);
}

/**
 * The outcome of an answer in a few words, and its kind.
 * @param {DryRunAnswer} answer
 * @returns {{ kind: 'rejected' | 'refused' | 'failed' | 'patched' | 'unchanged', text: string }}
 */
export function outcomeOf(answer) {
  const failed =
    answer.failures.length === 0
      ? ''
      : ` · ${String(answer.failures.length)} rule${answer.failures.length === 1 ? '' : 's'} failed`;
  const refused =
    answer.objectProblems.length === 0 ? '' : ' · the API server would refuse the result';
  if (answer.rejections.length > 0) {
    const count = answer.rejections.length;
    return {
      kind: 'rejected',
      text: `Rejected by ${String(count)} rule${count === 1 ? '' : 's'}${failed}`,
    };
  }
  const kind = refused !== '' ? 'refused' : failed !== '' ? 'failed' : undefined;
  if (answer.patch.length > 0) {
    const count = answer.patch.length;
    return {
      kind: kind ?? 'patched',
      text: `Patched: ${String(count)} operation${count === 1 ? '' : 's'}${refused}${failed}`,
    };
  }
  return { kind: kind ?? 'unchanged', text: `No change${failed}` };
}

/**
 * A list panel (`<id>-section`) shown only when it has entries.
 * @param {'problems' | 'notes'} id
 * @param {readonly string[]} items
 */
function showList(id, items) {
  byId(`${id}-section`, HTMLElement).hidden = items.length === 0;
  replace(byId(`${id}-count`, HTMLElement), `(${String(items.length)})`);
  replace(byId(id, HTMLElement), ...items.map((item) => el('li', undefined, item)));
}

/**
 * @param {DryRunAnswer} answer
 */
function showSummary(answer) {
  const summary = byId('summary', HTMLElement);
  const outcome = outcomeOf(answer);
  summary.dataset.outcome = outcome.kind;
  replace(summary, outcome.text);
}

/**
 * A unified diff, one block per line, coloured by its first character.
 * @param {string} diff
 */
function showDiff(diff) {
  const target = byId('diff', HTMLElement);
  if (diff === '') {
    replace(target, el('span', 'line', 'No difference: the rules leave the object as it is.'));
    return;
  }
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  replace(target, ...lines.map((line) => el('span', `line ${lineClass(line)}`, line || ' ')));
}

/**
 * @param {string} line
 * @returns {string}
 */
function lineClass(line) {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('Index:')) return 'file';
  if (line.startsWith('===')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'context';
}
