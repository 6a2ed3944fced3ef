import type { JsonObject } from '../engine/json.js';
import type { CompiledRule } from '../engine/rule.js';
import type { TargetResource } from '../kube/target-resources.js';

/** Whether apply-to-existing may run for a rule; the reason is shown in its status and an Event. */
export type ApplyPermission =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * What the author of one ModRule may do, as the API server's authorizer answers for the identity
 * recorded on the rule (SubjectAccessReview). `namespace` is undefined for cluster-scoped objects.
 */
export interface AuthorAccess {
  /** Whether the author may list this collection (objects outside it are never evaluated). */
  mayList(target: TargetResource, namespace: string | undefined): Promise<boolean>;
  /** Whether the author may update this one object (it is never written otherwise). */
  mayUpdate(target: TargetResource, namespace: string | undefined, name: string): Promise<boolean>;
  /**
   * The same question asked afresh (never answered from a cache): right before each write, since
   * a job may have waited minutes for its turn or a rollout after `mayUpdate` was answered.
   */
  confirmUpdate(
    target: TargetResource,
    namespace: string | undefined,
    name: string,
  ): Promise<boolean>;
}

/**
 * The trust checks of apply-to-existing (docs/audit.md): whether the feature is enabled for a
 * rule (the admin's namespace opt-in, the operator's optional RBAC, an author recorded on the
 * rule), and the author's access for a rule it enabled. The Kubernetes implementation asks the
 * API server; tests give their own.
 */
export interface ApplyGate {
  enabled(rule: CompiledRule, ruleObject: JsonObject): Promise<ApplyPermission>;
  accessFor(ruleObject: JsonObject): AuthorAccess;
}

/**
 * An access review could not be answered (the API server is unreachable, say). The job stops and
 * is retried later: an unanswered review is neither an allowed update nor a forbidden one.
 */
export class AccessCheckFailed extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AccessCheckFailed';
  }
}
