// @ts-check
// The playground page: YAML editors in, evaluate() (the dry run, in the page) out, debounced.
// The editors' content is kept in the link (a versioned `#v1.…` fragment: any other fragment is
// an ordinary in-page link and never touches the editors) and in a draft in localStorage; loading
// an example offers Undo. No navigation loses work.

import { byId, el, replace } from './dom.js';
import { createEditor } from './editor.js';
import { loadDraft, sameState, saveDraft } from './draft.js';
import { EXAMPLE } from './example.js';
import { errorsView } from './errors-view.js';
import { bundledEntries, fillPicker, serverRulesEntry } from './library.js';
import { readResults, showResults } from './resource-results.js';
import { errorOf, runDryRun } from './run-dryrun.js';
import { decodeState, encodeState, isShareFragment, OPERATIONS } from './share.js';
import { setTabSummary, showView, startViewTabs } from './view-tabs.js';
import { documentContents, locatePath } from './yaml-locate.js';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */
/** @typedef {import('./library.js').LibraryEntry} LibraryEntry */

/** Quiet time after the last keystroke before evaluating. */
const DEBOUNCE_MS = 300;

/** @type {readonly ['rules', 'resource', 'namespaceManifest', 'nodeManifest', 'old']} */
const EDITED = ['rules', 'resource', 'namespaceManifest', 'nodeManifest', 'old'];

const namespace = byId('namespace', HTMLInputElement);
const operation = byId('operation', HTMLSelectElement);
const status = byId('status', HTMLElement);
const results = byId('results', HTMLElement);
const notice = byId('notice', HTMLElement);
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
        if (!applying) edited(DEBOUNCE_MS);
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
  const context = [state.namespaceManifest, state.nodeManifest, state.old].filter(
    (text) => text.trim() !== '',
  ).length;
  replace(byId('context-count', HTMLElement), context === 0 ? '' : `(${String(context)})`);
  if (context > 0) byId('context', HTMLDetailsElement).open = true;
}

/**
 * @param {'busy' | 'ok' | 'error'} state
 * @param {string} text
 */
function setStatus(state, text) {
  status.dataset.state = state;
  status.textContent = text;
}

/**
 * A notice above the editors, with buttons (Undo, Restore).
 * @param {string} text
 * @param {readonly { label: string, run: () => void }[]} [actions]
 */
function showNotice(text, actions = []) {
  const buttons = actions.map(({ label, run }) => {
    const button = el('button', 'notice-action', label);
    button.type = 'button';
    button.addEventListener('click', () => {
      notice.hidden = true;
      run();
    });
    return button;
  });
  replace(notice, el('span', undefined, text), ...buttons);
  notice.hidden = false;
}

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
  showNotice(`${what}.`, [
    {
      label: 'Undo',
      run: () => {
        applyState(previous);
        edited(0);
        editor('rules').view.focus();
      },
    },
  ]);
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
  /** @param {(typeof EDITED)[number]} name */
  const split = (name) => {
    const state = editor(name).view.state;
    return documentContents(state).map((node) => ({
      text: state.sliceDoc(node.from, node.to),
      label: [['kind'], ['metadata', 'name']]
        .map((path) => {
          const value = locatePath(state, node, path);
          return value.complete && value.value !== undefined
            ? state.sliceDoc(value.value.from, value.value.to)
            : '';
        })
        .filter((word) => word !== '')
        .join(' '),
    }));
  };
  const resources = split('resource');
  return {
    resources: resources.map((doc) => doc.text),
    olds: split('old').map((doc) => doc.text),
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
    results.classList.remove('stale');
    setTabSummary(showResults(read));
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
  results.classList.add('stale');
  setStatus('error', 'Error');
  setTabSummary('Error');
  const first = errors.show(message, code);
  // Never leave an error below the visible area (unless the user is reading the results).
  if (byId('layout', HTMLElement).dataset.view === 'inputs' || window.innerWidth > 960) {
    const box = first.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) first.scrollIntoView({ block: 'center' });
  }
}

/** Last fragment written, so that only real changes touch the history entry. */
let savedFragment = '';

/** @param {PlaygroundState} state */
async function saveToFragment(state) {
  const fragment = await encodeState(state);
  const button = byId('copy-link', HTMLButtonElement);
  button.disabled = fragment === undefined;
  button.title = fragment === undefined ? 'Too large to share in a link' : '';
  if (fragment === undefined || fragment === savedFragment) return;
  savedFragment = fragment;
  history.replaceState(null, '', `#${fragment}`);
}

/**
 * Reads a share link. Fragments the playground did not make are ignored. With `undo`, the
 * editors replaced can be restored.
 * @param {boolean} undo
 * @returns {Promise<boolean>} whether the editors were set from the link
 */
async function loadFromFragment(undo) {
  const fragment = location.hash.slice(1);
  if (!isShareFragment(fragment) || fragment === savedFragment) return false;
  const decoded = await decodeState(fragment);
  if (!decoded.ok) {
    showNotice(
      `This link's content cannot be read: ${decoded.reason}. Your editors are unchanged.`,
    );
    return false;
  }
  savedFragment = fragment;
  if (undo) replaceWithUndo(decoded.state, 'Opened the shared link');
  else applyState(decoded.state);
  return true;
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus('ok', 'Link copied');
  } catch {
    setStatus('error', 'Copy the link from the address bar');
  }
}

function loadChosen() {
  const entry = library.find((candidate) => candidate.id === picker.value);
  if (entry === undefined) return;
  replaceWithUndo(entry.apply(currentState()), `Loaded “${entry.title}”`);
}

async function start() {
  startViewTabs();
  namespace.addEventListener('input', () => {
    edited(DEBOUNCE_MS);
  });
  operation.addEventListener('change', () => {
    edited(0);
  });
  byId('copy-link', HTMLButtonElement).addEventListener('click', () => {
    void copyLink();
  });
  fillPicker(picker, library);
  byId('load-example', HTMLButtonElement).addEventListener('click', loadChosen);
  window.addEventListener('hashchange', () => {
    void loadFromFragment(true);
  });
  void serverRulesEntry().then((entry) => {
    if (entry === undefined) return;
    library = [...library, entry];
    fillPicker(picker, library);
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

void start();
