import { createHash } from 'node:crypto';
import type { AskingRule, ClusterView, ObjectKey } from '../../engine/cluster/cluster-view.js';
import type { AskResolver } from '../../engine/cluster/resolve-loop.js';
import { describeError } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';
import { reviewUserAccess } from '../../authz/access-review.js';
import type { AuthorRecord, UserInfo } from '../../authz/author-record.js';
import { createTtlCache } from '../../authz/ttl-cache.js';
import type { LookupAdmissionCheck } from '../../webhook/dependencies.js';
import type { Informer, KubeObject } from '../../kube/informer.js';
import type { KubeClient } from '../../kube/kube-client.js';
import { createKubeClusterView, createLookupResolver } from './kube-cluster-view.js';
import { createLookupCaches, type LookupCaches } from './lookup-caches.js';
import { KNOWN_LOOKUP_KINDS, type LookupKind } from './lookup-kinds.js';
import { createLookupReviewer } from './lookup-reviewer.js';
import { createReadPlanner } from './read-plan.js';
import { ReviewCache } from './review-cache.js';

export interface OperatorLookupsOptions {
  readonly client: KubeClient;
  readonly kinds: readonly LookupKind[];
  readonly clusterNamespace: string;
  /** The ModRule informer (its cache keeps each rule's author annotation). */
  readonly modRules: Informer;
  /**
   * The trusted author of a ModRule manifest: the same entry point apply-to-existing uses
   * (src/authz/author-record.ts), so a signature check added there applies here too.
   */
  readonly authorOf: (ruleObject: KubeObject) => AuthorRecord;
  readonly logger: Logger;
  readonly now: () => number;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  /** External-data asks (providers), when configured. */
  readonly external?: { readonly view: ClusterView['external']; readonly resolver: AskResolver };
}

export interface OperatorLookups {
  readonly caches: LookupCaches;
  readonly view: ClusterView;
  readonly resolver: AskResolver;
  readonly admission: LookupAdmissionCheck;
}

const NO_RULE: AuthorRecord = {
  known: false,
  reason: 'the rule is not in the operator cache (deleted?)',
};

/** Lookups in the operator: caches, the ClusterView, its resolver and the admission check. */
export function createOperatorLookups(options: OperatorLookupsOptions): OperatorLookups {
  const { client, logger } = options;
  const caches = createLookupCaches({
    client,
    kinds: options.kinds,
    logger,
    delay: options.delay,
  });
  // One parse per rule object: the informer replaces the object when the rule changes.
  const authors = new WeakMap<KubeObject, AuthorRecord>();
  const authorOf = (asker: AskingRule): AuthorRecord => {
    const obj = options.modRules.get(`${asker.namespace}/${asker.name}`);
    if (obj === undefined) return NO_RULE;
    let record = authors.get(obj);
    if (record === undefined) {
      record = options.authorOf(obj);
      authors.set(obj, record);
    }
    return record;
  };
  const planner = createReadPlanner({
    caches,
    clusterNamespace: options.clusterNamespace,
    authorOf,
  });
  const reviews = new ReviewCache({ now: options.now });
  const runner = createLookupReviewer({
    ask: (user, attributes) => reviewUserAccess(client, user, attributes),
    cache: reviews,
    logger,
    now: options.now,
    delay: options.delay,
  });
  const never = new AbortController().signal;
  const view = createKubeClusterView({
    planner,
    reviews,
    runner,
    ...(options.external === undefined ? {} : { external: options.external.view }),
  });
  const resolver = createLookupResolver({
    planner,
    runner,
    ...(options.external === undefined ? {} : { external: options.external.resolver }),
    sleep: (ms) => options.delay(ms, never),
  });
  return {
    caches,
    view,
    resolver,
    admission: createLookupAdmissionCheck(client, options.now, logger),
  };
}

/**
 * The admission-time check of a ModRule's literal lookups: may the requesting user `get` the
 * object named? Kinds not in KNOWN_LOOKUP_KINDS are not checked here (their lookups are
 * unavailable at evaluation anyway). Answers are cached for 10 s under a hash of identity and
 * object; a review that fails refuses the rule (nothing is assumed allowed).
 */
export function createLookupAdmissionCheck(
  client: KubeClient,
  now: () => number,
  logger: Logger,
): LookupAdmissionCheck {
  const cache = createTtlCache<boolean>({ ttlMs: 10_000, maxEntries: 10_000, now });
  return {
    async refusal(user: UserInfo, key: ObjectKey): Promise<string | undefined> {
      const group = key.apiVersion.includes('/') ? key.apiVersion.split('/')[0] : '';
      const kind = KNOWN_LOOKUP_KINDS.find((k) => k.kind === key.kind && k.group === group);
      if (kind === undefined) return undefined;
      const attributes = {
        verb: 'get',
        group: kind.group,
        resource: kind.resource,
        namespace: kind.namespaced ? (key.namespace ?? '') : '',
        name: key.name,
      };
      const id = createHash('sha256')
        .update(JSON.stringify([user, attributes]))
        .digest('base64');
      try {
        const allowed = await cache.get(id, () => reviewUserAccess(client, user, attributes));
        if (allowed) return undefined;
        const where = attributes.namespace === '' ? '' : ` in namespace ${attributes.namespace}`;
        return `you (${user.username}) may not get ${kind.resource}${where}, so this rule may not look it up`;
      } catch (err) {
        logger.warn({ err: describeError(err) }, 'lookup access review at admission failed');
        return `the access review of this lookup failed: ${describeError(err)}`;
      }
    },
  };
}
