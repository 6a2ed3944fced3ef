import { createHash } from 'node:crypto';
import type { JsonObject } from '../engine/json.js';
import type { CompiledRule } from '../engine/rule.js';
import { describeError } from '../errors/catalog.js';
import type { KubeClient } from '../kube/kube-client.js';
import {
  AccessCheckFailed,
  type ApplyGate,
  type ApplyPermission,
  type AuthorAccess,
} from './apply-gate.js';
import { optInRefusal, type ApplyOptIn } from './apply-opt-in.js';
import { authorOf, type UserInfo } from './author-record.js';
import type { AuthorSigner } from './author-signature.js';
import { TokenBucket } from './token-bucket.js';
import { AccessReviewFailed, askAccessReview, subjectOf } from './access-review.js';
import { createTtlCache } from './ttl-cache.js';
import { resourceLabel, type TargetResource } from '../kube/target-resources.js';

/** Where an admin gets the operator's update permission from. */
export const OPTIONAL_RBAC = 'config/optional/apply-to-existing-rbac.yaml';

export interface KubeApplyGateOptions {
  readonly client: KubeClient;
  readonly optIn: ApplyOptIn;
  /** Namespace manifests by name (the operator's informer). */
  readonly namespaces: () => ReadonlyMap<string, JsonObject>;
  /** The resources the dragnet webhook receives (discovery). */
  readonly targets: () => Promise<readonly TargetResource[]>;
  /** Checks the MAC of each rule's author record (the operator's key). */
  readonly signer: AuthorSigner | undefined;
  readonly now: () => number;
  /** Waits for the rate limit of access reviews (the operator's delay; virtual in tests). */
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborts waits for the rate limit (the operator stopping). */
  readonly signal?: AbortSignal;
  /** How long an access review's answer is reused (default 10 s). */
  readonly ttlMs?: number;
  /** Answers kept at most (default 10,000). */
  readonly maxEntries?: number;
  /** Access reviews sent per second at most, all rules together (default 20). */
  readonly reviewsPerSecond?: number;
  /** Access reviews sent at once after a quiet spell (default 50). */
  readonly reviewBurst?: number;
}

/** The default ceiling on access reviews (docs/audit.md). */
export const DEFAULT_REVIEWS_PER_SECOND = 20;
export const DEFAULT_REVIEW_BURST = 50;

interface ResourceAttributes {
  readonly verb: 'list' | 'update';
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name?: string;
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
 * The trust checks of apply-to-existing, the audit's counts and the policy reports against the
 * API server (docs/audit.md): the author's access by SubjectAccessReview with the identity the
 * rule records (when its signature verifies), and the operator's own update permission by
 * SelfSubjectAccessReview. Answers are cached briefly under a hash of identity, verb, resource,
 * namespace and name, in a cache of bounded size, and the reviews actually sent share one token
 * bucket: however many rules and authors tenants create, the operator asks the API server at
 * most `reviewsPerSecond` questions a second (the callers wait). A review that fails throws
 * AccessCheckFailed: nothing is assumed allowed, nor reported as forbidden.
 */
export function kubeApplyGate(options: KubeApplyGateOptions): ApplyGate {
  const cache = createTtlCache<boolean>({
    ttlMs: options.ttlMs ?? 10_000,
    maxEntries: options.maxEntries ?? 10_000,
    now: options.now,
  });
  const bucket = new TokenBucket({
    ratePerSecond: options.reviewsPerSecond ?? DEFAULT_REVIEWS_PER_SECOND,
    burst: options.reviewBurst ?? DEFAULT_REVIEW_BURST,
    now: options.now,
    delay: options.delay,
  });
  const signal = options.signal ?? new AbortController().signal;

  const ask = async (
    kind: 'SubjectAccessReview' | 'SelfSubjectAccessReview',
    spec: JsonObject,
    attributes: ResourceAttributes,
  ): Promise<boolean> => {
    await bucket.take(signal);
    if (signal.aborted)
      throw new AccessCheckFailed(
        `${kind} for ${attributes.verb} on ${attributes.resource} not sent: the operator is stopping`,
      );
    try {
      return await askAccessReview(options.client, kind, spec, attributes);
    } catch (err) {
      throw new AccessCheckFailed(
        err instanceof AccessReviewFailed ? err.message : describeError(err),
      );
    }
  };

  const subject = subjectOf;

  // Keyed by a hash: identities are up to 16 KiB and object names are chosen by tenants.
  const asAuthor = (
    user: UserInfo,
    who: string,
    attributes: ResourceAttributes,
  ): Promise<boolean> => {
    const key = createHash('sha256')
      .update(JSON.stringify([who, attributes]))
      .digest('base64');
    return cache.get(key, () => ask('SubjectAccessReview', subject(user), attributes));
  };

  // Not cached: asked once per job and kind, and an admin who just installed the optional RBAC
  // expects the next job to see it.
  const operatorMayUpdate = (target: TargetResource, namespace: string): Promise<boolean> =>
    ask(
      'SelfSubjectAccessReview',
      {},
      { verb: 'update', group: target.group, resource: target.resource, namespace },
    );

  return {
    async enabled(rule, ruleObject): Promise<ApplyPermission> {
      const author = authorOf(ruleObject, options.signer);
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
      const author = authorOf(ruleObject, options.signer);
      if (!author.known) {
        const no = (): Promise<boolean> => Promise.resolve(false);
        return { mayList: no, mayUpdate: no, confirmUpdate: no };
      }
      return {
        // Not cached: asked right before the write, however long the job waited since.
        confirmUpdate: (target, namespace, name) =>
          ask('SubjectAccessReview', subject(author.user), {
            verb: 'update',
            group: target.group,
            resource: target.resource,
            namespace: namespace ?? '',
            name,
          }),
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
