// @ts-check
// Builds the dry-run body from the editors and evaluates it through evaluate() (the in-browser
// engine, same contract as PUT /v1/dryrun). Several resources (a multi-document resource text)
// get a result each: from the engine's `{results: [...]}` answer when it gives one, otherwise by
// evaluating each document on its own.

import { evaluate } from './evaluate.js';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */

/**
 * @typedef {object} Reply
 * @property {number} status
 * @property {unknown} body
 */

/** The answer of an engine that reads one resource at a time, to a multi-document text. */
const SINGLE_ONLY = /^resourceManifest must hold exactly one Kubernetes object/;

/**
 * The PUT /v1/dryrun body for the editors' state. The old object goes whenever the editor holds
 * one (for DELETE it is the object being deleted, sent alone, as the API server sends it): with
 * CREATE the dry run refuses it, as `kubemod-ts test` and `dryrun --old` do (issue 39); the
 * namespace and node manifests become `syntheticRefs`; the cluster objects go as `cluster`, as YAML
 * text, which PUT /v1/dryrun and the in-page engine read with the same code.
 * @param {PlaygroundState} state
 * @param {{ resource?: string, old?: string }} [override] one document of a multi-document text
 * @returns {Record<string, unknown>}
 */
export function dryRunBody(state, override = {}) {
  const resource = override.resource ?? state.resource;
  const old = override.old ?? state.old;
  /** @type {Record<string, unknown>} */
  const body = { modRules: state.rules, operation: state.operation };
  if (state.namespace !== '') body.namespace = state.namespace;
  const hasOld = old.trim() !== '';
  if (state.operation === 'DELETE' && hasOld) {
    body.oldResourceManifest = old;
  } else {
    body.resourceManifest = resource;
    if (hasOld) body.oldResourceManifest = old;
  }
  /** @type {Record<string, string>} */
  const refs = {};
  if (state.namespaceManifest.trim() !== '') refs.namespace = state.namespaceManifest;
  if (state.nodeManifest.trim() !== '') refs.node = state.nodeManifest;
  if (Object.keys(refs).length > 0) body.syntheticRefs = refs;
  if (state.cluster.trim() !== '') body.cluster = state.cluster;
  return body;
}

/**
 * Evaluates the state. `documents` are the resource text's documents (and the old text's, when
 * it has as many), used only when the engine refuses several resources in one body.
 * @param {PlaygroundState} state
 * @param {() => { resources: string[], olds: string[], labels: string[] }} documents
 * @returns {Promise<Reply>}
 */
export async function runDryRun(state, documents) {
  const reply = await evaluate(dryRunBody(state));
  const error = errorOf(reply.body);
  if (reply.status !== 400 || error === undefined || !SINGLE_ONLY.test(error)) return reply;
  const { resources, olds, labels } = documents();
  if (resources.length < 2) return reply;
  /** @type {Record<string, unknown>[]} */
  const results = [];
  for (const [i, resource] of resources.entries()) {
    const one = await evaluate(
      dryRunBody(state, { resource, old: olds.length === resources.length ? olds[i] : undefined }),
    );
    if (one.status !== 200) return one;
    results.push({ name: labels[i], ...one.body });
  }
  return { status: 200, body: { results } };
}

/**
 * @param {unknown} body
 * @returns {string | undefined}
 */
export function errorOf(body) {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error } = /** @type {Record<string, unknown>} */ (body);
  return typeof error === 'string' ? error : undefined;
}
