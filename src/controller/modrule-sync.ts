import {
  APPLY_TO_EXISTING_ANNOTATION,
  ENFORCEMENT_ANNOTATION,
  FAILURE_POLICY_ANNOTATION,
} from '../api/index.js';
import type { JsonObject } from '../engine/json.js';
import { AUTHOR_ANNOTATION, MAX_AUTHOR_CHARS } from '../authz/author-record.js';
import { AUTHOR_MAC_ANNOTATION } from '../authz/author-signature.js';
import {
  loadModRule,
  modRuleMeta,
  type ModRuleLoadOptions,
  type RuleLoadResult,
} from '../rules/load-modrule.js';
import type { Logger } from '../observability/logger.js';
import type { Informer, KubeObject } from '../kube/informer.js';

export interface ModRuleSyncOptions extends ModRuleLoadOptions {
  readonly logger: Logger;
  /** Called after every add/update with the load outcome, and with `undefined` result on delete. */
  readonly onResult?: (key: string, result: RuleLoadResult | undefined) => void;
}

/**
 * What the ModRule informer keeps of a rule once it is compiled into the store: its identity and
 * generation (status writes, Events, telling status-only updates apart), and what the
 * apply-to-existing controller reads (its annotation, the author record and
 * `status.applyToExisting`). The spec, the
 * rest of the status and managedFields, most of the object, are not kept.
 */
export function retainedModRule(obj: KubeObject): KubeObject {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const metadata: JsonObject = {};
  for (const field of ['name', 'namespace', 'uid', 'resourceVersion', 'generation'] as const) {
    const value = meta[field];
    if (typeof value === 'string' || typeof value === 'number') metadata[field] = value;
  }
  const annotations: JsonObject = {};
  const source = isObject(meta.annotations) ? meta.annotations : {};
  const applyToExisting = source[APPLY_TO_EXISTING_ANNOTATION];
  if (typeof applyToExisting === 'string')
    annotations[APPLY_TO_EXISTING_ANNOTATION] = applyToExisting;
  // The rule's author (the trust checks of apply-to-existing and the audit); a longer value is
  // not a record the webhook wrote, and is dropped rather than kept in memory.
  const author = source[AUTHOR_ANNOTATION];
  if (typeof author === 'string' && author.length <= MAX_AUTHOR_CHARS)
    annotations[AUTHOR_ANNOTATION] = author;
  // Its signature (a MAC of a few dozen characters; a longer value is not one the webhook wrote).
  const mac = source[AUTHOR_MAC_ANNOTATION];
  if (typeof mac === 'string' && mac.length <= MAX_MAC_CHARS)
    annotations[AUTHOR_MAC_ANNOTATION] = mac;
  // The behaviour annotations: a change of either alone does not bump the generation, so the
  // update handler compares them to tell a rule change from a status write (see behaviourOf).
  for (const key of [ENFORCEMENT_ANNOTATION, FAILURE_POLICY_ANNOTATION]) {
    const value = source[key];
    if (typeof value === 'string') annotations[key] = value.slice(0, MAX_BEHAVIOUR_CHARS);
  }
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  const status = isObject(obj.status) ? obj.status.applyToExisting : undefined;
  return status === undefined ? { metadata } : { metadata, status: { applyToExisting: status } };
}

/** Longest author MAC kept: the webhook writes `v1:` and 43 base64url characters. */
const MAX_MAC_CHARS = 128;

/**
 * Longest behaviour annotation value kept: valid values are a few characters; a longer one is
 * invalid whatever it says, and the rule is reloaded (and refused) when it changes.
 */
const MAX_BEHAVIOUR_CHARS = 64;

/** The rule's enforcement and failure-policy annotations as one comparable string. */
function behaviourOf(obj: KubeObject): string {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  return [ENFORCEMENT_ANNOTATION, FAILURE_POLICY_ANNOTATION]
    .map((key) => {
      const value = annotations[key];
      return typeof value === 'string' ? JSON.stringify(value.slice(0, MAX_BEHAVIOUR_CHARS)) : '-';
    })
    .join(' ');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Feeds a ModRule informer into the rule store. The informer may keep only
 * {@link retainedModRule} of each object: updates are told apart by `metadata.generation`, which
 * the API server increments on every change of a custom resource other than to its metadata or
 * status, so an update with the same generation is our own status write (or a label change).
 */
export function bindModRuleInformer(informer: Informer, options: ModRuleSyncOptions): void {
  const upsert = (obj: KubeObject): void => {
    const result = loadModRule(obj, options);
    const key = `${result.namespace}/${result.name}`;
    if (!result.ready) {
      options.logger.warn(
        { rule: key, reason: result.reason, error: result.message },
        'ModRule not loaded',
      );
    } else {
      options.logger.debug({ rule: key }, 'ModRule loaded');
    }
    options.onResult?.(key, result);
  };
  informer.on('add', upsert);
  informer.on('update', (obj, old) => {
    const gen = modRuleMeta(obj).generation;
    if (
      gen !== undefined &&
      gen === modRuleMeta(old).generation &&
      behaviourOf(obj) === behaviourOf(old)
    ) {
      const result = loadResultForStatusOnly(obj, options);
      if (result !== undefined) options.onResult?.(`${result.namespace}/${result.name}`, result);
      return;
    }
    upsert(obj);
  });
  informer.on('delete', (obj) => {
    const meta = modRuleMeta(obj);
    options.store.delete(meta.namespace, meta.name);
    options.logger.debug({ rule: `${meta.namespace}/${meta.name}` }, 'ModRule removed');
    options.onResult?.(`${meta.namespace}/${meta.name}`, undefined);
  });
}

/** After a status-only change, report the stored outcome with the new current status. */
function loadResultForStatusOnly(
  obj: KubeObject,
  options: ModRuleSyncOptions,
): RuleLoadResult | undefined {
  const meta = modRuleMeta(obj);
  if (options.store.get(meta.namespace, meta.name) === undefined) return loadModRule(obj, options);
  const status = obj.status;
  return {
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    generation: meta.generation,
    ready: true,
    reason: 'Loaded',
    message: 'The ModRule is loaded and active.',
    currentStatus:
      typeof status === 'object' && status !== null && !Array.isArray(status) ? status : undefined,
  };
}
