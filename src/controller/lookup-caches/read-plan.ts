import { createHash } from 'node:crypto';
import type { AskingRule, LookupAnswer, ObjectKey } from '../../engine/cluster/cluster-view.js';
import type { ResourceAttributes } from '../../authz/access-review.js';
import type { AuthorRecord, UserInfo } from '../../authz/author-record.js';
import type { CacheRead, LookupCaches } from './lookup-caches.js';
import { LOOKUP_KINDS_FLAG, LOOKUP_KINDS_VALUE, LOOKUPS_RBAC } from './lookup-kinds.js';

/** The access review a read needs: who, what, and the cache id of the answer. */
export interface NeededReview {
  readonly id: string;
  readonly user: UserInfo;
  readonly attributes: ResourceAttributes;
}

/** What one read comes to before the author's access is known. */
export type ReadPlan =
  /** Decided without the author's access (not cached, wrong namespace, ...). */
  | { readonly type: 'answer'; readonly answer: LookupAnswer }
  /** Needs the author's `get`: then the cache's answer. */
  | { readonly type: 'review'; readonly review: NeededReview; readonly read: CacheRead };

export interface ReadPlanner {
  plan(asker: AskingRule, key: ObjectKey): ReadPlan;
}

export interface ReadPlannerOptions {
  readonly caches: LookupCaches;
  /** Namespace of cluster-wide rules: the only ones that read other namespaces. */
  readonly clusterNamespace: string;
  /**
   * The trusted author of a rule (the same record apply-to-existing trusts), or unknown with the
   * reason. Called for every read: the caller memoises it per rule object.
   */
  readonly authorOf: (asker: AskingRule) => AuthorRecord;
}

const refused = (reason: string): ReadPlan => ({
  type: 'answer',
  answer: { kind: 'refused', reason },
});
const unavailable = (reason: string): ReadPlan => ({
  type: 'answer',
  answer: { kind: 'unavailable', reason },
});

/** Why a kind cannot be read at all, or undefined when it is cached and readable. */
function cacheProblem(read: CacheRead, key: ObjectKey): ReadPlan | undefined {
  switch (read.state) {
    case 'not-cached':
      return unavailable(
        `${key.kind} (${key.apiVersion}) is not cached for lookups: an admin adds it to ${LOOKUP_KINDS_FLAG} (chart value ${LOOKUP_KINDS_VALUE})`,
      );
    case 'other-version':
      return unavailable(
        `${key.kind} is cached as ${read.cachedAs}, not ${key.apiVersion}: look it up with apiVersion ${read.cachedAs}`,
      );
    case 'forbidden':
      return unavailable(
        `${key.kind} is listed in ${LOOKUP_KINDS_FLAG}, but the operator may not list and watch ${read.kind.resource}: an admin installs ${LOOKUPS_RBAC} (chart value lookups.rbac.enabled) or grants them`,
      );
    default:
      return undefined;
  }
}

/**
 * Decides a lookup in a fixed order that reveals nothing before it is allowed: the kind must be
 * cached; a namespaced rule reads only its own namespace and no cluster-scoped kind; the rule must
 * record an author; then the author's `get` on that group/resource/namespace/name decides, and
 * only then is the cache read (found, or absent — which is itself information).
 */
export function createReadPlanner(options: ReadPlannerOptions): ReadPlanner {
  // Identity hashes per author record (records are memoised per rule object by the caller).
  const hashes = new WeakMap<object, string>();
  const hashOf = (record: { readonly key: string }): string => {
    let hash = hashes.get(record);
    if (hash === undefined) {
      hash = createHash('sha256').update(record.key).digest('base64');
      hashes.set(record, hash);
    }
    return hash;
  };

  return {
    plan(asker, key): ReadPlan {
      const namespace = key.namespace ?? '';
      const read = options.caches.read(key.apiVersion, key.kind, namespace, key.name);
      const problem = cacheProblem(read, key);
      if (problem !== undefined) return problem;
      if (read.state !== 'syncing' && read.state !== 'ready') return unavailable('not readable');
      const kind = read.kind;
      const clusterWide = asker.namespace === options.clusterNamespace;
      if (!kind.namespaced && !clusterWide)
        return refused(
          `${kind.kind} is cluster-scoped: only rules in ${options.clusterNamespace} read cluster-scoped kinds`,
        );
      if (kind.namespaced && namespace === '')
        return refused(`${kind.kind} is namespaced: the lookup must name its namespace`);
      if (!kind.namespaced && namespace !== '')
        return refused(`${kind.kind} is cluster-scoped: the lookup's namespace must be ""`);
      // Names neither the namespace asked for nor anything in it: only the rule's own.
      if (!clusterWide && namespace !== asker.namespace)
        return refused(
          `a rule in namespace ${asker.namespace} reads only its own namespace (rules in ${options.clusterNamespace} read others)`,
        );
      if (key.name === '') return refused('the lookup names no object (empty name)');
      const author = options.authorOf(asker);
      if (!author.known) return refused(`the rule's author is unknown: ${author.reason}`);
      const attributes: ResourceAttributes = {
        verb: 'get',
        group: kind.group,
        resource: kind.resource,
        namespace,
        name: key.name,
      };
      const id = `${hashOf(author)} ${kind.group}/${kind.resource} ${namespace}/${key.name}`;
      return { type: 'review', review: { id, user: author.user, attributes }, read };
    },
  };
}

/** The answer once the author's access is known. */
export function answerAfterReview(
  read: CacheRead,
  allowed: boolean,
  review: NeededReview,
): LookupAnswer {
  const where =
    review.attributes.namespace === '' ? '' : ` in namespace ${review.attributes.namespace}`;
  if (!allowed)
    return {
      kind: 'refused',
      reason: `the rule's author (${review.user.username}) may not get ${review.attributes.resource}${where} (SubjectAccessReview)`,
    };
  if (read.state === 'syncing')
    return {
      kind: 'unavailable',
      reason: `the ${read.kind.kind} lookup cache has not synced yet`,
    };
  if (read.state !== 'ready') return { kind: 'unavailable', reason: 'not readable' };
  return read.object === undefined ? { kind: 'absent' } : { kind: 'found', value: read.object };
}
