// @ts-check
// The playground page: YAML editors in, evaluate() (the dry run, in the page) out, debounced.
// The editors' content is kept in the link (a versioned `#v1.…` fragment: any other fragment is
// an ordinary in-page link and never touches the editors) and in a draft in localStorage; loading
// an example offers Undo. No navigation loses work.

import { byId } from './dom.js';
import { createEditor } from './editor.js';
import { loadDraft, sameState, saveDraft } from './draft.js';
import { EXAMPLE } from './example.js';
import { errorsView } from './errors-view.js';
import { exposeEvaluate } from './evaluate.js';
import { bundledEntries, describeEntry, fillPicker, serverRulesEntry } from './library.js';
import { readResults, showResults } from './resource-results.js';
import { errorOf, runDryRun } from './run-dryrun.js';
import { copyLink, readFragment, saveToFragment, setStatus } from './link.js';
import { OPERATIONS } from './share.js';
import { setTabSummary, showView, startViewTabs } from './view-tabs.js';
import { splitDocuments } from './yaml-locate.js';
import { noticeEdited, showNotice } from './notice.js';
import { contextCount, markStale, showRunMarks } from './run-marks.js';
import { startLoadPanel } from './load-source.js';
import { startTheme } from './theme.js';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */
/** @typedef {import('./library.js').LibraryEntry} LibraryEntry */

/** Quiet time after the last keystroke before evaluating. */
const DEBOUNCE_MS = 300;

/** @type {readonly ['rules', 'resource', 'namespaceManifest', 'nodeManifest', 'old', 'cluster']} */
const EDITED = ['rules', 'resource', 'namespaceManifest', 'nodeManifest', 'old', 'cluster'];
/** The editors of the Context panel. */
const CONTEXT = /** @type {const} */ (['namespaceManifest', 'nodeManifest', 'old', 'cluster']);

const namespace = byId('namespace', HTMLInputElement);
const operation = byId('operation', HTMLSelectElement);
const results = byId('results', HTMLElement);
const picker = byId('library', HTMLSelectElement);

/** While the page sets the editors itself, their change events do not count as edits. */
let applying = false;
/**
 * Whether evaluations save the draft: not after opening a shared link over a different draft,
 * until the user edits (so that the draft survives a look at someone's link).
 */
let draftArmed = true;

const editors = Object.fromEntries(
  EDITED.map((name) => [
    name,
    createEditor({
      parent: byId(`${name}-host`, HTMLElement),
      id: name,
      labelledBy: `${name}-label`,
      describedBy: `${name}-hint ${name}-errors`,
      onChange: () => {
        if (applying) return;
        showContextCount();
        noticeEdited();
        edited(DEBOUNCE_MS);
      },
      onRun: () => {
        schedule(0);
      },
    }),
  ]),
);
/** @param {(typeof EDITED)[number]} name */
const editor = (name) => {
  const found = editors[name];
  if (found === undefined) throw new Error(`no editor ${name}`);
  return found;
};
const errors = errorsView(editors, [namespace, operation]);

/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
let sequence = 0;
/** @type {LibraryEntry[]} */
let library = bundledEntries();

/** @returns {PlaygroundState} */
function currentState() {
  const value = operation.value;
  return {
    rules: editor('rules').text(),
    resource: editor('resource').text(),
    namespace: namespace.value.trim(),
    operation: value === 'UPDATE' || value === 'DELETE' ? value : 'CREATE',
    namespaceManifest: editor('namespaceManifest').text(),
    nodeManifest: editor('nodeManifest').text(),
    old: editor('old').text(),
    cluster: editor('cluster').text(),
  };
}

/** @param {PlaygroundState} state */
function applyState(state) {
  applying = true;
  try {
    for (const name of EDITED) editor(name).setText(state[name]);
  } finally {
    applying = false;
  }
  namespace.value = state.namespace;
  operation.value = OPERATIONS.includes(state.operation) ? state.operation : 'CREATE';
  if (showContextCount() > 0) byId('context', HTMLDetailsElement).open = true;
}

/** Updates the Context panel's count; returns it. */
const showContextCount = () => contextCount(CONTEXT.map((name) => editor(name).text()));

/**
 * Replaces the editors, offering to undo it.
 * @param {PlaygroundState} next
 * @param {string} what
 */
function replaceWithUndo(next, what) {
  const previous = currentState();
  applyState(next);
  edited(0);
  if (sameState(previous, next)) return;
  showNotice(
    `${what}.`,
    [
      {
        label: 'Undo',
        run: () => {
          applyState(previous);
          edited(0);
          editor('rules').view.focus();
        },
      },
    ],
    true,
  );
}

/**
 * The user changed something: evaluate (after `delay`) and keep the draft.
 * @param {number} delay
 */
function edited(delay) {
  draftArmed = true;
  schedule(delay);
}

/** @param {number} delay */
function schedule(delay) {
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    void evaluate();
  }, delay);
}

/** The resource text's documents (and the old text's), for an engine that takes one at a time. */
function documents() {
  const resources = splitDocuments(editor('resource').view.state);
  return {
    resources: resources.map((doc) => doc.text),
    olds: splitDocuments(editor('old').view.state).map((doc) => doc.text),
    labels: resources.map((doc) => doc.label),
  };
}

async function evaluate() {
  const id = ++sequence;
  const state = currentState();
  if (draftArmed) saveDraft(state);
  void saveToFragment(state);
  setStatus('busy', 'Evaluating…');
  /** @type {{ status: number, body: unknown }} */
  let reply;
  try {
    reply = await runDryRun(state, documents);
  } catch (err) {
    if (id !== sequence) return;
    showError(`The dry run failed: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  if (id !== sequence) return;
  if (reply.status === 200) {
    const read = readResults(reply.body);
    if (read === undefined) {
      showError(`The answer is not a dry-run result (HTTP ${String(reply.status)}).`);
      return;
    }
    errors.clear();
    markStale(results, false);
    setTabSummary(showResults(read));
    showRunMarks(read, editor('rules'));
    setStatus('ok', 'Up to date');
    return;
  }
  const record =
    typeof reply.body === 'object' && reply.body !== null
      ? /** @type {Record<string, unknown>} */ (reply.body)
      : {};
  const code = typeof record.code === 'string' ? record.code : undefined;
  showError(errorOf(reply.body) ?? `HTTP ${String(reply.status)}`, code);
}

/**
 * @param {string} message
 * @param {string} [code]
 */
function showError(message, code) {
  markStale(results, true);
  setStatus('error', 'Error');
  setTabSummary('Error');
  const first = errors.show(message, code);
  // Never leave an error below the visible area (unless the user is reading the results).
  if (byId('layout', HTMLElement).dataset.view === 'inputs' || window.innerWidth > 960) {
    const box = first.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) first.scrollIntoView({ block: 'center' });
  }
}

/**
 * Reads a share link into the editors (a fragment the playground did not make is ignored); with
 * `undo`, what it replaced can be restored.
 * @param {boolean} undo
 * @returns {Promise<boolean>} whether the editors were set from the link
 */
async function loadFromFragment(undo) {
  const read = await readFragment();
  if (read === undefined) return false;
  if (!read.ok) {
    showNotice(`This link's content cannot be read: ${read.reason}. Your editors are unchanged.`);
    return false;
  }
  if (undo) replaceWithUndo(read.state, 'Opened the shared link');
  else applyState(read.state);
  return true;
}

function loadChosen() {
  const entry = library.find((candidate) => candidate.id === picker.value);
  if (entry === undefined) return;
  replaceWithUndo(entry.apply(currentState()), `Loaded “${entry.title}”`);
}

async function start() {
  startTheme();
  startViewTabs();
  namespace.addEventListener('input', () => {
    noticeEdited();
    edited(DEBOUNCE_MS);
  });
  operation.addEventListener('change', () => {
    noticeEdited();
    edited(0);
  });
  byId('copy-link', HTMLButtonElement).addEventListener('click', () => {
    void copyLink();
  });
  fillPicker(picker, library);
  describeEntry(picker, library);
  picker.addEventListener('change', () => {
    describeEntry(picker, library);
  });
  byId('load-example', HTMLButtonElement).addEventListener('click', loadChosen);
  startLoadPanel({
    loaded: (target, text, what) => {
      replaceWithUndo({ ...currentState(), [target]: text }, `Loaded ${what}`);
    },
  });
  window.addEventListener('hashchange', () => {
    void loadFromFragment(true);
  });
  void serverRulesEntry().then((entry) => {
    if (entry === undefined) return;
    library = [...library, entry];
    fillPicker(picker, library);
    describeEntry(picker, library);
  });

  const draft = loadDraft();
  const fromLink = await loadFromFragment(false);
  if (fromLink && draft !== undefined && !sameState(draft, currentState())) {
    draftArmed = false;
    showNotice('Opened a shared link; your own draft is kept.', [
      {
        label: 'Restore my draft',
        run: () => {
          replaceWithUndo(draft, 'Restored your draft');
        },
      },
    ]);
  } else if (!fromLink) {
    applyState(draft ?? EXAMPLE);
  }
  showView('inputs', false);
  schedule(0);
}

exposeEvaluate();
void start();
