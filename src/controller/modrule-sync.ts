import {
  ENFORCEMENT_ANNOTATION,
  FAILURE_POLICY_ANNOTATION,
  formatFieldErrors,
} from '../api/index.js';
import { validateModRule } from '../engine/validate-modrule.js';
import type { JsonObject } from '../engine/json.js';
import { APPLY_TO_EXISTING_ANNOTATION } from '../audit/apply-existing/apply-existing.js';
import { AUTHOR_ANNOTATION, MAX_AUTHOR_CHARS } from '../authz/author-record.js';
import { AUTHOR_MAC_ANNOTATION } from '../authz/author-signature.js';
import { compileRule, RuleCompileError } from '../engine/rule.js';
import type { Compilers } from '../engine/compilers.js';
import { unexpectedCompileError } from '../rules/compile-modrule.js';
import type { RuleStore } from '../engine/store.js';
import type { Logger } from '../observability/logger.js';
import type { Informer, KubeObject } from '../kube/informer.js';

/** The outcome of loading one ModRule, which the status writer turns into a `Ready` condition. */
export interface RuleLoadResult {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
  readonly generation: number | undefined;
  readonly ready: boolean;
  /** `Loaded`, `Invalid` or `CompileFailed`. */
  readonly reason: string;
  readonly message: string;
  /** The status the object carries now (so unchanged statuses are not rewritten). */
  readonly currentStatus: JsonObject | undefined;
}

export interface ModRuleSyncOptions {
  readonly store: RuleStore;
  readonly clusterNamespace: string;
  readonly logger: Logger;
  /** Shared compilers: identical selects, regexes and templates across rules compile once. */
  readonly compilers?: Compilers | undefined;
  /** Called after every add/update with the load outcome, and with `undefined` result on delete. */
  readonly onResult?: (key: string, result: RuleLoadResult | undefined) => void;
}

function metaOf(obj: KubeObject): {
  name: string;
  namespace: string;
  uid?: string;
  generation?: number;
} {
  const meta = (obj.metadata ?? {}) as {
    name?: unknown;
    namespace?: unknown;
    uid?: unknown;
    generation?: unknown;
  };
  return {
    name: typeof meta.name === 'string' ? meta.name : '',
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}),
    ...(typeof meta.generation === 'number' ? { generation: meta.generation } : {}),
  };
}

/**
 * Validates and compiles one ModRule object into the store. An invalid rule is removed from the
 * store (so a broken update does not leave the previous version running) and reported.
 */
export function loadModRule(obj: KubeObject, options: ModRuleSyncOptions): RuleLoadResult {
  const meta = metaOf(obj);
  const status = obj.status;
  const base = {
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    generation: meta.generation,
    currentStatus:
      typeof status === 'object' && status !== null && !Array.isArray(status) ? status : undefined,
  };
  // compileRule reports the select/regex/template/path errors, so validation is structural here.
  let validated: ReturnType<typeof validateModRule>;
  try {
    validated = validateModRule(obj, { semantic: false });
  } catch (err) {
    options.store.delete(meta.namespace, meta.name);
    return {
      ...base,
      ready: false,
      reason: 'Invalid',
      message: formatFieldErrors([unexpectedCompileError(err)]),
    };
  }
  if (!validated.ok) {
    options.store.delete(meta.namespace, meta.name);
    return {
      ...base,
      ready: false,
      reason: 'Invalid',
      message: formatFieldErrors(validated.errors),
    };
  }
  try {
    const compiled = compileRule(validated.modRule, {
      clusterNamespace: options.clusterNamespace,
      defaultNamespace: meta.namespace,
      compilers: options.compilers,
    });
    options.store.put(compiled);
    return { ...base, ready: true, reason: 'Loaded', message: 'The ModRule is loaded and active.' };
  } catch (err) {
    // Any error, not only RuleCompileError (a stack overflow compiling a 4,000-term select), is
    // this rule's own status: an invalid rule never stops the sync of the others.
    options.store.delete(meta.namespace, meta.name);
    return {
      ...base,
      ready: false,
      reason: 'CompileFailed',
      message: formatFieldErrors(
        err instanceof RuleCompileError ? err.errors : [unexpectedCompileError(err)],
      ),
    };
  }
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
    const gen = metaOf(obj).generation;
    if (
      gen !== undefined &&
      gen === metaOf(old).generation &&
      behaviourOf(obj) === behaviourOf(old)
    ) {
      const result = loadResultForStatusOnly(obj, options);
      if (result !== undefined) options.onResult?.(`${result.namespace}/${result.name}`, result);
      return;
    }
    upsert(obj);
  });
  informer.on('delete', (obj) => {
    const meta = metaOf(obj);
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
  const meta = metaOf(obj);
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
