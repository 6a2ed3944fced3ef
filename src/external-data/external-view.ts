import type { AskingRule, LookupAnswer } from '../engine/cluster/cluster-view.js';
import type { AnswerCache } from './answer-cache.js';
import { mayUse, type ProviderRegistry } from './provider-registry.js';
import { PROVIDER_LIMITS, type ExternalDataProvider } from './provider-types.js';

/** The `external` half of a ClusterView: answers from the cache only, never calls. */
export interface ExternalView {
  external(asker: AskingRule, provider: string, key: string): LookupAnswer;
}

export interface ExternalAccess {
  readonly registry: ProviderRegistry;
  /** The operator's namespace: its rules may use every provider. */
  readonly systemNamespace: string;
}

/**
 * Which provider an ask may use, or the answer that ends it without a call: `refused` when the
 * rule's namespace may not use the provider (a tenant cannot tell an unknown provider from a
 * forbidden one) or the key is too long; `unavailable` when the provider object is invalid or,
 * for a cluster-wide rule, does not exist.
 */
export function providerForAsk(
  access: ExternalAccess,
  asker: AskingRule,
  name: string,
  key: string,
): { readonly provider: ExternalDataProvider } | { readonly answer: LookupAnswer } {
  const entry = access.registry.get(name);
  const system = asker.namespace === access.systemNamespace;
  const refused = {
    answer: {
      kind: 'refused',
      reason: `external-data provider ${JSON.stringify(name)} is not available to rules in namespace ${asker.namespace} (an admin lists namespaces in the provider's spec.allowedNamespaces)`,
    },
  } as const;
  if (entry === undefined) {
    if (!system) return refused;
    return {
      answer: {
        kind: 'unavailable',
        reason: `no ExternalDataProvider named ${JSON.stringify(name)}`,
      },
    };
  }
  if (!entry.ok) {
    if (!system) return refused;
    return { answer: { kind: 'unavailable', reason: entry.reason } };
  }
  if (!mayUse(entry.provider, asker.namespace, access.systemNamespace)) return refused;
  if (key.length > PROVIDER_LIMITS.maxKeyLength)
    return {
      answer: {
        kind: 'refused',
        reason: `external-data key is longer than ${String(PROVIDER_LIMITS.maxKeyLength)} characters`,
      },
    };
  return { provider: entry.provider };
}

/** Reads provider answers from `cache`; a key not cached (or expired) is `pending`. */
export function createExternalView(access: ExternalAccess, cache: AnswerCache): ExternalView {
  return {
    external(asker, name, key): LookupAnswer {
      const found = providerForAsk(access, asker, name, key);
      if ('answer' in found) return found.answer;
      const cached = cache.get(name, found.provider.resourceVersion, key);
      if (cached === undefined) return { kind: 'pending' };
      switch (cached.kind) {
        case 'value':
          return { kind: 'found', value: cached.value };
        case 'absent':
          return { kind: 'absent' };
        case 'failed':
          return { kind: 'unavailable', reason: cached.reason };
      }
    },
  };
}
