import { KubemodError } from '../../errors/catalog.js';
import type { JsonObject } from '../../engine/json.js';
import {
  DEFAULT_REQUEST_NAMESPACE,
  resolveRequestNamespace,
  withRequestNamespace,
  type RequestNamespace,
} from '../../engine/request-namespace.js';
import { RuleStore } from '../../engine/store.js';
import { clusterFromDocuments } from '../../engine/cluster/cluster-documents.js';
import type { StaticCluster } from '../../engine/cluster/static-cluster.js';
import { checkModRule, describeInvalidModRule } from '../../rules/compile-modrule.js';
import {
  MAX_DRYRUN_RULES,
  readDryRunRequest,
  type DryRunRequest,
  type DryRunResource,
  type GivenSyntheticRefs,
} from './dryrun-request.js';
import type { SyntheticRefs } from '../../engine/evaluate.js';
import type { JsonValue } from '../../engine/json.js';
import {
  stripBookkeeping,
  syntheticRefNames,
  type SyntheticRefNames,
} from '../admission/synthetic-refs.js';

/**
 * Most ModRule compilations one dry run does: the rules are compiled once for each namespace its
 * resources are in (a rule without a namespace goes to each resource's), so several resources in
 * several namespaces multiply the work, which this bounds as MAX_DRYRUN_RULES bounds one.
 */
export const MAX_DRYRUN_COMPILES = 4 * MAX_DRYRUN_RULES;

/** One resource of a dry run, ready to evaluate once its syntheticRefs are known. */
export interface PreparedResource {
  readonly resource: DryRunResource;
  /** The namespace the resource is evaluated in (undefined for a cluster-scoped kind). */
  readonly namespace: string | undefined;
  /** What was assumed to decide it (RequestNamespace.reason), for the explanation. */
  readonly namespaceReason: string | undefined;
  /** The request's ModRules, compiled for this namespace. */
  readonly store: RuleStore;
  /** The Namespace and Node manifests the evaluation's syntheticRefs are made of. */
  readonly refNames: SyntheticRefNames;
}

/** A dry-run body read and its ModRules compiled, before the syntheticRefs are looked up. */
export interface PreparedDryRun {
  readonly request: DryRunRequest;
  /** What lookups read: the body's `cluster` member; undefined when it has none. */
  readonly cluster: StaticCluster | undefined;
  readonly items: readonly PreparedResource[];
}

/**
 * Reads a dry-run body and compiles its ModRules into a fresh private store for each namespace
 * its resources are evaluated in (a rule without a namespace goes to the request's namespace).
 * Each resource's namespace is decided by the engine's one rule (resolveRequestNamespace: the
 * body's `namespace`, else the resource's, else `default`; none for a cluster-scoped kind) and
 * filled into its metadata, as the API server does before the webhook sees it. Throws
 * INPUT_INVALID listing every invalid ModRule with its field errors.
 */
export function prepareDryRun(
  body: JsonValue,
  deps: { readonly clusterNamespace: string },
): PreparedDryRun {
  const request = readDryRunRequest(body);
  const cluster =
    request.cluster === undefined
      ? undefined
      : clusterFromDocuments(request.cluster, 'cluster', deps.clusterNamespace);
  const decided = request.resources.map((r) =>
    resolveRequestNamespace(r.object, {
      given: request.namespace,
      scopeOf: cluster === undefined ? undefined : (group, kind) => cluster.scopeOf(group, kind),
    }),
  );
  const namespaces = decided.map((d) => d.namespace);
  const distinct = [...new Set(namespaces.map((ns) => ns ?? DEFAULT_REQUEST_NAMESPACE))];
  const compiles = distinct.length * request.modRules.length;
  if (compiles > MAX_DRYRUN_COMPILES) {
    throw invalid(
      `resourceManifest: ${String(request.resources.length)} resources in ${String(distinct.length)} namespaces with ${String(request.modRules.length)} ModRules take ${String(compiles)} compilations; a dry run does at most ${String(MAX_DRYRUN_COMPILES)} (send fewer namespaces or rules)`,
    );
  }
  const problems = new Set<string>();
  const stores = new Map<string, RuleStore>();
  for (const namespace of distinct) {
    stores.set(namespace, compileStore(request.modRules, namespace, deps, problems));
  }
  if (problems.size > 0) throw invalid([...problems].join('\n'));
  const items = request.resources.map((given, i): PreparedResource => {
    const namespace = namespaces[i];
    const store = stores.get(namespace ?? DEFAULT_REQUEST_NAMESPACE) ?? new RuleStore();
    const resource: DryRunResource = {
      object: withRequestNamespace(given.object, namespace),
      oldObject:
        given.oldObject === undefined
          ? undefined
          : withRequestNamespace(given.oldObject, namespace),
    };
    return {
      resource,
      namespace,
      namespaceReason: assumption(decided[i]),
      store,
      refNames: syntheticRefNames(resource.object, namespace),
    };
  });
  return { request, items, cluster };
}

function compileStore(
  modRules: readonly unknown[],
  defaultNamespace: string,
  deps: { readonly clusterNamespace: string },
  problems: Set<string>,
): RuleStore {
  const store = new RuleStore({ clusterNamespace: deps.clusterNamespace });
  modRules.forEach((raw, index) => {
    const check = checkModRule(raw, { clusterNamespace: deps.clusterNamespace, defaultNamespace });
    if (!check.ok) {
      problems.add(
        `modRules[${String(index)}]: ${describeInvalidModRule(check.key, check.errors)}`,
      );
      return;
    }
    if (store.get(check.rule.namespace, check.rule.name) !== undefined) {
      problems.add(`modRules[${String(index)}]: ModRule ${check.rule.key} is defined twice`);
      return;
    }
    store.put(check.rule);
  });
  return store;
}

/**
 * The names of the manifests still to look up for a resource: those its syntheticRefs need and
 * the body did not give.
 */
export function namesToLookUp(
  names: SyntheticRefNames,
  given: GivenSyntheticRefs | undefined,
): SyntheticRefNames {
  return {
    ...(names.namespace === undefined || given?.namespace !== undefined
      ? {}
      : { namespace: names.namespace }),
    ...(names.node === undefined || given?.node !== undefined ? {} : { node: names.node }),
  };
}

/**
 * A resource's syntheticRefs: the manifests the body gave, injected where the webhook would
 * inject the cluster's (the namespace's into namespaced objects, the node's into Pods annotated
 * with their node) and without their bookkeeping fields, and the looked-up ones for the rest.
 */
export function mergeSyntheticRefs(
  names: SyntheticRefNames,
  given: GivenSyntheticRefs | undefined,
  looked: SyntheticRefs,
): SyntheticRefs {
  const pick = (
    needed: string | undefined,
    own: JsonObject | undefined,
    fetched: JsonObject | undefined,
  ): JsonObject | undefined =>
    needed === undefined ? undefined : own === undefined ? fetched : stripBookkeeping(own);
  const namespace = pick(names.namespace, given?.namespace, looked.namespace);
  const node = pick(names.node, given?.node, looked.node);
  return {
    ...(namespace === undefined ? {} : { namespace }),
    ...(node === undefined ? {} : { node }),
  };
}

/** Whether any manifest is named. */
export function needsLookUp(names: SyntheticRefNames): boolean {
  return names.namespace !== undefined || names.node !== undefined;
}

/** The reason of a decision that assumed something, for the explanation; else undefined. */
function assumption(decided: RequestNamespace | undefined): string | undefined {
  return decided !== undefined && decided.assumed ? decided.reason : undefined;
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
