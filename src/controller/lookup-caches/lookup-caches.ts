import { describeError } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';
import { reviewOwnAccess } from '../../authz/access-review.js';
import {
  collectionListWatch,
  createInformer,
  type Informer,
  type KubeObject,
  type ListWatch,
} from '../../kube/informer.js';
import type { KubeClient } from '../../kube/kube-client.js';
import { compactForLookup } from './compact-object.js';
import { apiVersionOf, collectionPath, LOOKUPS_RBAC, type LookupKind } from './lookup-kinds.js';

/** Accept header of a metadata-only list/watch (the API server answers PartialObjectMetadata). */
export const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/** What a cache says about one object. */
export type CacheRead =
  /** The kind is not in --lookup-kinds. */
  | { readonly state: 'not-cached' }
  /** The kind is cached, in another version of its group. */
  | { readonly state: 'other-version'; readonly cachedAs: string }
  /** Listed in --lookup-kinds, but the operator may not list and watch it (RBAC). */
  | { readonly state: 'forbidden'; readonly kind: LookupKind }
  /** The first list has not arrived yet. */
  | { readonly state: 'syncing'; readonly kind: LookupKind }
  | { readonly state: 'ready'; readonly kind: LookupKind; readonly object: KubeObject | undefined };

export interface LookupCaches {
  /** Checks the operator's permissions, then starts a list/watch per permitted kind. */
  start(): Promise<void>;
  stop(): void;
  /** True once every started cache has delivered its first full list (readiness). */
  synced(): boolean;
  waitForSync(): Promise<void>;
  /** Reads one object by apiVersion, kind, namespace ('' for cluster-scoped) and name. */
  read(apiVersion: string, kind: string, namespace: string, name: string): CacheRead;
  /** Objects per kind (for logs and benchmarks). */
  sizes(): Record<string, number>;
}

export interface LookupCachesOptions {
  readonly client: KubeClient;
  readonly kinds: readonly LookupKind[];
  readonly logger: Logger;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The list/watch of a kind (default: the client's, metadata-only where the kind says so). */
  readonly listWatch?: (kind: LookupKind) => ListWatch;
  /** Whether the operator may list and watch a kind (default: SelfSubjectAccessReviews). */
  readonly mayWatch?: (kind: LookupKind) => Promise<boolean>;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The watch caches lookups read (docs/lookups-operator.md): one informer per kind the admin chose
 * with --lookup-kinds, each keeping compact frozen objects (compact-object.ts). A kind the operator
 * may not list and watch is not started (its reads say so, naming the optional RBAC) rather than
 * retried for ever with the webhook held unready.
 */
export function createLookupCaches(options: LookupCachesOptions): LookupCaches {
  const { client, logger } = options;
  const informers = new Map<LookupKind, Informer>();
  const forbidden = new Set<LookupKind>();
  const byGroupKind = new Map(options.kinds.map((k) => [`${k.group}/${k.kind}`, k]));

  const defaultListWatch = (kind: LookupKind): ListWatch => {
    const query = kind.labelSelector === '' ? {} : { labelSelector: kind.labelSelector };
    const path = collectionPath(kind);
    if (!kind.metadataOnly) return collectionListWatch(client, path, query);
    // Metadata only: lists answer PartialObjectMetadataList, watches PartialObjectMetadata.
    const lists = collectionListWatch(client, path, query, { accept: METADATA_ACCEPT });
    const watches = collectionListWatch(client, path, query, { accept: METADATA_WATCH_ACCEPT });
    return {
      list: (onPage) => lists.list(onPage),
      watch: (resourceVersion, onEvent) => watches.watch(resourceVersion, onEvent),
    };
  };
  const listWatch = options.listWatch ?? defaultListWatch;
  const mayWatch =
    options.mayWatch ??
    (async (kind: LookupKind): Promise<boolean> => {
      const attributes = { group: kind.group, resource: kind.resource, namespace: '' };
      const answers = await Promise.all(
        ['list', 'watch'].map((verb) => reviewOwnAccess(client, { verb, ...attributes })),
      );
      return answers.every(Boolean);
    });

  const startKind = (kind: LookupKind): void => {
    const informer = createInformer(listWatch(kind), {
      delay: options.delay,
      transform: compactForLookup(kind),
    });
    informer.on('error', (err, retryInMs) => {
      logger.warn(
        { lookupKind: kind.kind, err: describeError(err), retryInMs },
        'lookup cache watch failed; retrying',
      );
    });
    informers.set(kind, informer);
    informer.start();
  };

  let started: Promise<void> | undefined;
  return {
    start(): Promise<void> {
      started ??= (async (): Promise<void> => {
        const allowed = await Promise.all(
          options.kinds.map((kind) =>
            mayWatch(kind).catch((err: unknown) => {
              // Not known: start anyway; the informer retries and readiness waits for it.
              logger.warn(
                { lookupKind: kind.kind, err: describeError(err) },
                'could not check the permission to watch a lookup kind',
              );
              return true;
            }),
          ),
        );
        options.kinds.forEach((kind, i) => {
          if (allowed[i] === true) startKind(kind);
          else forbidden.add(kind);
        });
        if (forbidden.size > 0)
          logger.warn(
            { lookupKinds: [...forbidden].map((k) => k.kind) },
            `lookups of these kinds are unavailable: the operator may not list and watch them (an admin installs ${LOOKUPS_RBAC})`,
          );
      })();
      return started;
    },
    stop(): void {
      for (const informer of informers.values()) informer.stop();
    },
    synced(): boolean {
      if (started === undefined || informers.size + forbidden.size < options.kinds.length)
        return false;
      for (const informer of informers.values()) if (!informer.synced) return false;
      return true;
    },
    async waitForSync(): Promise<void> {
      await this.start();
      await Promise.all([...informers.values()].map((inf) => inf.waitForSync()));
      logger.info({ lookupCaches: this.sizes() }, 'lookup caches synced');
    },
    read(apiVersion, kindName, namespace, name): CacheRead {
      const kind = byGroupKind.get(`${groupOf(apiVersion)}/${kindName}`);
      if (kind === undefined) return { state: 'not-cached' };
      if (apiVersionOf(kind) !== apiVersion)
        return { state: 'other-version', cachedAs: apiVersionOf(kind) };
      if (forbidden.has(kind)) return { state: 'forbidden', kind };
      const informer = informers.get(kind);
      if (informer === undefined || !informer.synced) return { state: 'syncing', kind };
      const key = kind.namespaced ? `${namespace}/${name}` : name;
      return { state: 'ready', kind, object: informer.get(key) };
    },
    sizes(): Record<string, number> {
      const out: Record<string, number> = {};
      for (const [kind, informer] of informers) out[kind.kind] = informer.list().length;
      return out;
    },
  };
}
