import type { JsonValue } from '../json.js';

/**
 * What a rule may read of the cluster (issue 35; the seam between the engine, the operator's
 * caches and external-data providers — see docs/lookups.md). Pure types, no I/O.
 */

/** The rule that asks (its namespace decides what it may read; kubemod-system = cluster-wide). */
export interface AskingRule {
  readonly namespace: string;
  readonly name: string;
}

export interface ObjectKey {
  /** "v1", "apps/v1". */
  readonly apiVersion: string;
  /** "ConfigMap". */
  readonly kind: string;
  /** undefined or "" for cluster-scoped kinds. */
  readonly namespace: string | undefined;
  readonly name: string;
}

export type LookupAnswer =
  /** The object (or the provider's value). */
  | { readonly kind: 'found'; readonly value: JsonValue }
  /** Does not exist: the template sees an empty map. */
  | { readonly kind: 'absent' }
  /** Not allowed (the rule's author or namespace may not read it). */
  | { readonly kind: 'refused'; readonly reason: string }
  /** Kind not cached, cache not synced, provider down: the reason names the kind or flag. */
  | { readonly kind: 'unavailable'; readonly reason: string }
  /** Needs an async step first (an access review or a provider call). */
  | { readonly kind: 'pending' };

/** Synchronous, in-memory view of the cluster a rule may read. Never does I/O. */
export interface ClusterView {
  get(asker: AskingRule, key: ObjectKey): LookupAnswer;
  /** External data: provider name + key (string), admin-declared providers only. */
  external(asker: AskingRule, provider: string, key: string): LookupAnswer;
}

/** An ask that answered `pending`; the caller resolves these, then evaluates again. */
export type PendingAsk =
  | { readonly type: 'object'; readonly asker: AskingRule; readonly key: ObjectKey }
  | {
      readonly type: 'external';
      readonly asker: AskingRule;
      readonly provider: string;
      readonly key: string;
    };
