import { KubemodError } from '../../errors/catalog.js';
import { activeLookups } from '../cluster/active-lookups.js';
import { isClusterScopedKind } from '../cluster/cluster-scoped-kinds.js';
import type { ObjectKey } from '../cluster/cluster-view.js';
import { EMPTY_MAP, type LookupSession } from '../cluster/lookup-session.js';
import { describeKey } from '../cluster/namespace-pin.js';
import { chargeListVisit } from './costs.js';
import { renderError } from './faults.js';
import { fixed, type FunctionFamily } from './function-table.js';
import { isMap, ownValue, toStringArg } from './go-values.js';

/** Owners `ownerChain` follows at most (Pod → ReplicaSet → Deployment needs two). */
export const MAX_OWNER_DEPTH = 5;

/**
 * Functions that read the cluster (docs/lookups.md): `lookup` (Helm's signature, no list form),
 * `controllerOwner`, `ownerChain`, `external` and `externalOr`. They read through the evaluation's
 * LookupSession (pinned to the rule's namespace, memoised, charged); an absent object reads as an
 * empty map; a refused, unavailable or pending read fails the rule with an error naming the lookup
 * and the reason. Values are shared with the caches: the dict functions copy before writing
 * (they only write maps the render created), so a template cannot change them.
 */
export function clusterFunctions(): FunctionFamily {
  return {
    lookup: fixed(4, ([apiVersion, kind, namespace, name]) => {
      const key: ObjectKey = {
        apiVersion: toStringArg(apiVersion, 'lookup'),
        kind: toStringArg(kind, 'lookup'),
        namespace: toStringArg(namespace, 'lookup'),
        name: toStringArg(name, 'lookup'),
      };
      if (key.name === '') throw renderError('lookup: a name is required (there is no list form)');
      const lookups = session();
      return lookups.valueOf('lookup', describeKey(key), lookups.get(key));
    }),
    controllerOwner: fixed(1, ([object]) => ownerChain(object, 1)[0] ?? EMPTY_MAP),
    ownerChain: fixed(1, ([object]) => ownerChain(object, MAX_OWNER_DEPTH)),
    external: fixed(2, ([provider, key]) => {
      const [p, k] = [toStringArg(provider, 'external'), toStringArg(key, 'external')];
      const lookups = session();
      return lookups.valueOf('external', `${p} ${k}`, lookups.external(p, k));
    }),
    externalOr: fixed(3, ([provider, key, fallback]) => {
      const [p, k] = [toStringArg(provider, 'externalOr'), toStringArg(key, 'externalOr')];
      const lookups = session();
      const answer = lookups.external(p, k);
      // The declared default stands in for a provider that failed; a refused read or one still
      // pending (resolved, then evaluated again) is not a provider failure.
      return answer.kind === 'unavailable'
        ? fallback
        : lookups.valueOf('externalOr', `${p} ${k}`, answer);
    }),
  };
}

function session(): LookupSession {
  const lookups = activeLookups();
  if (lookups === undefined) {
    throw new KubemodError(
      'LOOKUP_UNAVAILABLE',
      'lookups are only answered while a rule is evaluated, with cluster state given',
    );
  }
  return lookups;
}

/** The objects found following controller owners from `object`, at most `depth` of them. */
function ownerChain(object: unknown, depth: number): unknown[] {
  const lookups = session();
  const chain: unknown[] = [];
  let current = object;
  for (let i = 0; i < depth; i++) {
    const key = controllerKey(current, lookups.requestNamespace);
    if (key === undefined) break;
    const owner = lookups.valueOf('ownerChain', describeKey(key), lookups.get(key));
    if (!isMap(owner) || Object.keys(owner).length === 0) break;
    chain.push(owner);
    current = owner;
  }
  return chain;
}

/** The key of the controller ownerReference of `object`, if it has one that can be read. */
function controllerKey(object: unknown, requestNamespace: string): ObjectKey | undefined {
  if (!isMap(object)) return undefined;
  const metadata = ownValue(object, 'metadata');
  if (!isMap(metadata)) return undefined;
  const refs = ownValue(metadata, 'ownerReferences');
  if (!Array.isArray(refs)) return undefined;
  chargeListVisit(refs.length);
  const ref: unknown = refs.find((r) => isMap(r) && ownValue(r, 'controller') === true);
  if (!isMap(ref)) return undefined;
  const [apiVersion, kind, name] = ['apiVersion', 'kind', 'name'].map((f) => ownValue(ref, f));
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string')
    return undefined;
  if (name === '' || kind === '') return undefined;
  const own = ownValue(metadata, 'namespace');
  const namespace = isClusterScopedKind(kind)
    ? ''
    : typeof own === 'string' && own !== ''
      ? own
      : requestNamespace;
  return { apiVersion, kind, namespace, name };
}
