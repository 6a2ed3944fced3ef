// @ts-check
// The playground page: editors in, /v1/dryrun?explain=true out, debounced; state in the fragment.

import { byId, el, replace } from './dom.js';
import { evaluate as evaluateDryRun, exposeEvaluate } from './evaluate.js';
import { EXAMPLE } from './example.js';
import { readAnswer, showAnswer } from './results.js';
import { decodeState, encodeState, OPERATIONS } from './share.js';

/** Quiet time after the last keystroke before evaluating. */
const DEBOUNCE_MS = 300;

const rules = byId('rules', HTMLTextAreaElement);
const resource = byId('resource', HTMLTextAreaElement);
const namespace = byId('namespace', HTMLInputElement);
const operation = byId('operation', HTMLSelectElement);
const status = byId('status', HTMLElement);
const results = byId('results', HTMLElement);

/**
 * Where an error is shown, by the field its message starts with (the API names the field first:
 * `modRules[1]: ModRule default/x is invalid: spec.match[0].select: …`).
 * @type {readonly { prefix: RegExp, box: string, inputs: readonly HTMLElement[] }[]}
 */
const ERROR_PLACES = [
  { prefix: /^modRules\b/, box: 'rules-error', inputs: [rules] },
  { prefix: /^resourceManifest\b/, box: 'resource-error', inputs: [resource] },
  { prefix: /^namespace\b/, box: 'request-error', inputs: [namespace] },
  { prefix: /^operation\b/, box: 'request-error', inputs: [operation] },
];

/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
/** @type {AbortController | undefined} */
let inFlight;
let sequence = 0;

/** @returns {import('./share.js').PlaygroundState} */
function currentState() {
  const value = operation.value;
  return {
    rules: rules.value,
    resource: resource.value,
    namespace: namespace.value.trim(),
    operation: value === 'UPDATE' || value === 'DELETE' ? value : 'CREATE',
  };
}

/** @param {import('./share.js').PlaygroundState} state */
function applyState(state) {
  rules.value = state.rules;
  resource.value = state.resource;
  namespace.value = state.namespace;
  operation.value = OPERATIONS.includes(state.operation) ? state.operation : 'CREATE';
}

/**
 * @param {'busy' | 'ok' | 'error'} state
 * @param {string} text
 */
function setStatus(state, text) {
  status.dataset.state = state;
  status.textContent = text;
}

/** @param {number} delay */
function schedule(delay) {
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    void evaluate();
  }, delay);
}

async function evaluate() {
  const id = ++sequence;
  inFlight?.abort();
  const controller = new AbortController();
  inFlight = controller;
  const state = currentState();
  void saveToFragment(state);
  setStatus('busy', 'Evaluating…');
  /** @type {Record<string, string>} */
  const body = {
    resourceManifest: state.resource,
    modRules: state.rules,
    operation: state.operation,
  };
  if (state.namespace !== '') body.namespace = state.namespace;
  /** @type {{ ok: boolean, status: number, body: unknown }} */
  let reply;
  try {
    const answer = await evaluateDryRun(body);
    reply = { ok: answer.status === 200, status: answer.status, body: answer.body };
  } catch (err) {
    if (controller.signal.aborted || id !== sequence) return;
    showError(`The server cannot be reached: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  if (id !== sequence) return;
  if (reply.ok) {
    const read = readAnswer(reply.body);
    if (read === undefined) {
      showError(`The server's answer is not a dry-run result (HTTP ${String(reply.status)}).`);
      return;
    }
    clearErrors();
    results.classList.remove('stale');
    showAnswer(read);
    setStatus('ok', 'Up to date');
    return;
  }
  const record =
    typeof reply.body === 'object' && reply.body !== null
      ? /** @type {Record<string, unknown>} */ (reply.body)
      : {};
  const message = typeof record.error === 'string' ? record.error : `HTTP ${String(reply.status)}`;
  const code = typeof record.code === 'string' ? record.code : undefined;
  showError(message, code);
}

/**
 * Shows an error next to the input it concerns (or above the results), and marks the results as
 * those of the last input that could be evaluated.
 * @param {string} message
 * @param {string} [code]
 */
function showError(message, code) {
  clearErrors();
  results.classList.add('stale');
  setStatus('error', 'Error');
  const place = ERROR_PLACES.find((candidate) => candidate.prefix.test(message));
  const box = byId(place?.box ?? 'general-error', HTMLElement);
  const lines = message.split('\n').filter((line) => line !== '');
  replace(
    box,
    el('strong', undefined, code === undefined ? 'Error' : `Error ${code}`),
    lines.length === 1
      ? el('div', 'error-text', lines[0])
      : el('ul', undefined, ...lines.map((line) => el('li', 'error-text', line))),
    place === undefined
      ? ''
      : el('div', 'hint', 'The results are from the last input that could be evaluated.'),
  );
  box.hidden = false;
  for (const input of place?.inputs ?? []) input.setAttribute('aria-invalid', 'true');
}

function clearErrors() {
  for (const id of ['rules-error', 'resource-error', 'request-error', 'general-error']) {
    const box = byId(id, HTMLElement);
    box.hidden = true;
    box.replaceChildren();
  }
  for (const input of [rules, resource, namespace, operation]) {
    input.removeAttribute('aria-invalid');
  }
}

/** Last fragment written, so that only real changes touch the history entry. */
let savedFragment = '';

/** @param {import('./share.js').PlaygroundState} state */
async function saveToFragment(state) {
  const fragment = await encodeState(state);
  if (fragment === undefined) {
    setShareNote('Too large to share in a link');
    return;
  }
  setShareNote('');
  if (fragment === savedFragment) return;
  savedFragment = fragment;
  history.replaceState(null, '', `#${fragment}`);
}

/** @param {string} note */
function setShareNote(note) {
  const button = byId('copy-link', HTMLButtonElement);
  button.disabled = note !== '';
  button.title = note;
}

async function loadFromFragment() {
  const fragment = location.hash.slice(1);
  if (fragment === '' || fragment === savedFragment) {
    if (fragment === '') applyState(EXAMPLE);
    return;
  }
  const decoded = await decodeState(fragment);
  if (decoded.ok) {
    savedFragment = fragment;
    applyState(decoded.state);
    return;
  }
  applyState(EXAMPLE);
  const notice = byId('notice', HTMLElement);
  replace(notice, `This link's content cannot be read: ${decoded.reason}. Showing the example.`);
  notice.hidden = false;
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus('ok', 'Link copied');
  } catch {
    setStatus('error', 'Copy the link from the address bar');
  }
}

function start() {
  for (const input of [rules, resource, namespace]) {
    input.addEventListener('input', () => {
      schedule(DEBOUNCE_MS);
    });
  }
  operation.addEventListener('change', () => {
    schedule(0);
  });
  for (const editor of [rules, resource]) {
    editor.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        schedule(0);
      }
    });
  }
  byId('copy-link', HTMLButtonElement).addEventListener('click', () => {
    void copyLink();
  });
  byId('load-example', HTMLButtonElement).addEventListener('click', () => {
    applyState(EXAMPLE);
    schedule(0);
  });
  window.addEventListener('hashchange', () => {
    void loadFromFragment().then(() => {
      schedule(0);
    });
  });
  void loadFromFragment().then(() => {
    schedule(0);
  });
}

exposeEvaluate();
start();
