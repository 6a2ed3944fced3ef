import { createHash } from 'node:crypto';
import type { JsonObject } from '../engine/json.js';
import type { CompiledRule } from '../engine/rule.js';
import { describeError } from '../errors/catalog.js';
import type { KubeClient } from '../controller/kube-client.js';
import { AccessCheckFailed } from './apply-existing.js';
import type { ApplyGate, ApplyPermission, AuthorAccess } from './apply-gate.js';
import { optInRefusal, type ApplyOptIn } from './apply-opt-in.js';
import { authorOf, type UserInfo } from './author-record.js';
import { reviewOwnAccess, reviewUserAccess, type ResourceAttributes } from './access-review.js';
import { createTtlCache } from './ttl-cache.js';
import { resourceLabel, type TargetResource } from './target-resources.js';

/** Where an admin gets the operator's update permission from. */
export const OPTIONAL_RBAC = 'config/optional/apply-to-existing-rbac.yaml';

export interface KubeApplyGateOptions {
  readonly client: KubeClient;
  readonly optIn: ApplyOptIn;
  /** Namespace manifests by name (the operator's informer). */
  readonly namespaces: () => ReadonlyMap<string, JsonObject>;
  /** The resources the dragnet webhook receives (discovery). */
  readonly targets: () => Promise<readonly TargetResource[]>;
  readonly now: () => number;
  /** How long an access review's answer is reused (default 10 s). */
  readonly ttlMs?: number;
  /** Answers kept at most (default 10,000). */
  readonly maxEntries?: number;
}

/** Rules without kind criteria may match any resource the dragnet receives. */
function candidates(rule: CompiledRule, targets: readonly TargetResource[]): TargetResource[] {
  const kinds = rule.kinds;
  const namespacedOnly = rule.scope.kind === 'namespace';
  return targets.filter(
    (t) => (kinds === undefined || kinds.includes(t.kind)) && (t.namespaced || !namespacedOnly),
  );
}

/**
 * The trust checks of apply-to-existing against the API server (docs/audit.md): the author's
 * access by SubjectAccessReview with the identity the rule records, and the operator's own
 * update permission by SelfSubjectAccessReview. Answers are cached briefly under a hash of
 * identity, verb, resource, namespace and name, in a cache of bounded size. A review that fails
 * throws AccessCheckFailed: nothing is assumed allowed, nor reported as forbidden.
 */
export function kubeApplyGate(options: KubeApplyGateOptions): ApplyGate {
  const cache = createTtlCache<boolean>({
    ttlMs: options.ttlMs ?? 10_000,
    maxEntries: options.maxEntries ?? 10_000,
    now: options.now,
  });

  // A failed review is AccessCheckFailed to the jobs: nothing assumed allowed, nor forbidden.
  const checked = async (question: () => Promise<boolean>): Promise<boolean> => {
    try {
      return await question();
    } catch (err) {
      throw new AccessCheckFailed(describeError(err));
    }
  };

  // Keyed by a hash: identities are up to 16 KiB and object names are chosen by tenants.
  const asAuthor = (
    user: UserInfo,
    who: string,
    attributes: ResourceAttributes,
  ): Promise<boolean> => {
    const key = createHash('sha256')
      .update(JSON.stringify([who, attributes]))
      .digest('base64');
    return cache.get(key, () => checked(() => reviewUserAccess(options.client, user, attributes)));
  };

  // Not cached: asked once per job and kind, and an admin who just installed the optional RBAC
  // expects the next job to see it.
  const operatorMayUpdate = (target: TargetResource, namespace: string): Promise<boolean> =>
    checked(() =>
      reviewOwnAccess(options.client, {
        verb: 'update',
        group: target.group,
        resource: target.resource,
        namespace,
      }),
    );

  return {
    async enabled(rule, ruleObject): Promise<ApplyPermission> {
      const author = authorOf(ruleObject);
      if (!author.known) return { allowed: false, reason: author.reason };
      const refusal = optInRefusal(
        options.optIn,
        rule.namespace,
        options.namespaces().get(rule.namespace),
      );
      if (refusal !== undefined) return { allowed: false, reason: refusal };
      const targets = candidates(rule, await options.targets());
      if (targets.length === 0) return { allowed: true };
      const namespace = rule.scope.kind === 'namespace' ? rule.scope.namespace : '';
      const answers = await Promise.all(targets.map((t) => operatorMayUpdate(t, namespace)));
      if (answers.some(Boolean)) return { allowed: true };
      const where = namespace === '' ? 'cluster-wide' : `in namespace ${namespace}`;
      return {
        allowed: false,
        reason: `apply-to-existing is not enabled: the operator has no update permission on ${targets
          .slice(0, 5)
          .map(resourceLabel)
          .join(
            ', ',
          )}${targets.length > 5 ? ', …' : ''} ${where}; an admin installs ${OPTIONAL_RBAC}`,
      };
    },

    accessFor(ruleObject): AuthorAccess {
      const author = authorOf(ruleObject);
      if (!author.known) {
        const no = (): Promise<boolean> => Promise.resolve(false);
        return { mayList: no, mayUpdate: no };
      }
      return {
        mayList: (target, namespace) =>
          asAuthor(author.user, author.key, {
            verb: 'list',
            group: target.group,
            resource: target.resource,
            namespace: namespace ?? '',
          }),
        mayUpdate: (target, namespace, name) =>
          asAuthor(author.user, author.key, {
            verb: 'update',
            group: target.group,
            resource: target.resource,
            namespace: namespace ?? '',
            name,
          }),
      };
    },
  };
}
