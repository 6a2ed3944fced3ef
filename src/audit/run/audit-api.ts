import type { JsonObject } from '../../engine/json.js';
import type { DiscoveredGroupVersion, TargetResource } from '../../kube/target-resources.js';

/** One page of a paginated list (`limit` / `continue`). */
export interface ObjectPage {
  /** Items with apiVersion and kind filled in (lists leave them out). */
  readonly items: readonly JsonObject[];
  /** The token for the next page; undefined on the last page. */
  readonly continueToken: string | undefined;
}

/** A discovery group whose resources could not be read (e.g. an aggregated API that is down). */
export interface DiscoveryProblem {
  readonly groupVersion: string;
  readonly reason: string;
}

export interface Discovery {
  readonly groupVersions: readonly DiscoveredGroupVersion[];
  readonly problems: readonly DiscoveryProblem[];
}

/**
 * The Kubernetes calls the audit and apply-to-existing make, so that everything above it is
 * testable without a cluster. Errors are thrown as they come (KubeApiError with the HTTP status).
 */
export interface AuditApi {
  /**
   * Resource lists of the preferred version of every group `wantGroup` accepts (the core group
   * is '').
   */
  discover(wantGroup: (group: string) => boolean): Promise<Discovery>;
  /** One page of a collection: in `namespace`, or across all namespaces (or cluster-scoped) when undefined. */
  listPage(
    target: TargetResource,
    namespace: string | undefined,
    limit: number,
    continueToken: string | undefined,
  ): Promise<ObjectPage>;
  get(target: TargetResource, namespace: string | undefined, name: string): Promise<JsonObject>;
  /** PUT of the whole object (with its resourceVersion: optimistic concurrency). */
  update(target: TargetResource, object: JsonObject): Promise<JsonObject>;
}

/** Writes about ModRules: status (merge patch on the status subresource) and Events. */
export interface RuleReporter {
  patchStatus(namespace: string, name: string, status: JsonObject): Promise<void>;
  event(
    rule: { readonly namespace: string; readonly name: string; readonly uid: string | undefined },
    event: {
      readonly type: 'Normal' | 'Warning';
      readonly reason: string;
      readonly message: string;
    },
  ): Promise<void>;
}
