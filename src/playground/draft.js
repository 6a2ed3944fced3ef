// @ts-check
// The editors' draft in this browser's localStorage: saved as one types, restored on the next
// visit, so that closing the tab, reloading or following a link loses nothing. Storage may be
// missing, full or refused (private windows, some file:// setups): the page then works without.

import { MAX_STATE_CHARS, OPERATIONS } from './share.js';

const DRAFT_KEY = 'kubemod-ts.playground.draft.v1';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */

/**
 * @param {PlaygroundState} state
 * @returns {boolean} whether it was stored
 */
export function saveDraft(state) {
  const json = JSON.stringify(state);
  if (json.length > MAX_STATE_CHARS) return false;
  try {
    localStorage.setItem(DRAFT_KEY, json);
    return true;
  } catch {
    return false;
  }
}

/** @returns {PlaygroundState | undefined} the stored draft, if there is a readable one */
export function loadDraft() {
  /** @type {unknown} */
  let value;
  try {
    const json = localStorage.getItem(DRAFT_KEY);
    if (json === null || json.length > MAX_STATE_CHARS) return undefined;
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = /** @type {Record<string, unknown>} */ (value);
  /** @param {unknown} field */
  const text = (field) => (typeof field === 'string' ? field : '');
  const operation = text(record.operation);
  return {
    rules: text(record.rules),
    resource: text(record.resource),
    namespace: text(record.namespace),
    operation: OPERATIONS.includes(operation)
      ? /** @type {PlaygroundState['operation']} */ (operation)
      : 'CREATE',
    namespaceManifest: text(record.namespaceManifest),
    nodeManifest: text(record.nodeManifest),
    old: text(record.old),
    cluster: text(record.cluster),
  };
}

/**
 * @param {PlaygroundState} a
 * @param {PlaygroundState} b
 * @returns {boolean}
 */
export function sameState(a, b) {
  return (
    a.rules === b.rules &&
    a.resource === b.resource &&
    a.namespace === b.namespace &&
    a.operation === b.operation &&
    a.namespaceManifest === b.namespaceManifest &&
    a.nodeManifest === b.nodeManifest &&
    a.old === b.old &&
    a.cluster === b.cluster
  );
}
