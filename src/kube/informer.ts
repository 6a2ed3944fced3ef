import type { JsonObject } from '../engine/json.js';
import {
  KubeApiError,
  type KubeClient,
  type QueryParams,
  type RawWatchEvent,
  type ReadOptions,
  type WatchHandle,
} from './kube-client.js';

/** A Kubernetes object as the informer sees it: metadata.name/namespace/resourceVersion are read. */
export type KubeObject = JsonObject;

/** The impure half of an informer: list, and watch from a resourceVersion. */
export interface ListWatch {
  /**
   * Lists the collection, handing over each page of items as it arrives (so a large collection
   * is never held raw all at once); resolves the list's resourceVersion.
   */
  list(onPage: (items: readonly KubeObject[]) => void): Promise<string>;
  watch(resourceVersion: string, onEvent: (event: RawWatchEvent) => void): WatchHandle;
}

export interface InformerHandlers {
  add: (obj: KubeObject) => void;
  update: (obj: KubeObject, old: KubeObject) => void;
  delete: (obj: KubeObject) => void;
  error: (err: unknown, retryInMs: number) => void;
}

export interface Informer {
  on<E extends keyof InformerHandlers>(event: E, handler: InformerHandlers[E]): void;
  start(): void;
  stop(): void;
  /** True once the first full list has been delivered to the handlers. */
  readonly synced: boolean;
  waitForSync(): Promise<void>;
  get(key: string): KubeObject | undefined;
  list(): KubeObject[];
}

export interface InformerOptions {
  /** Injected sleep, so backoff is testable without waiting. Resolves early when `signal` aborts. */
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Applied to every object before it is cached and handed out (e.g. to drop managedFields). */
  readonly transform?: (obj: KubeObject) => KubeObject;
  /**
   * What the cache keeps of each (transformed) object, when handlers consume the objects and
   * only part of them is needed later: `get`, `list`, the old object of `update` and `delete`
   * see this form. It must keep metadata.name, namespace and resourceVersion. Default: all.
   */
  readonly retain?: (obj: KubeObject) => KubeObject;
}

/** Drops metadata.managedFields, which nothing in the operator reads and which dominates object size. */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  const metadata = obj.metadata;
  if (
    typeof metadata !== 'object' ||
    metadata === null ||
    Array.isArray(metadata) ||
    !('managedFields' in metadata)
  )
    return obj;
  const rest = { ...metadata };
  delete rest.managedFields;
  return { ...obj, metadata: rest };
}

export function objectKey(obj: KubeObject): string {
  const meta = (obj.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const name = typeof meta.name === 'string' ? meta.name : '';
  return typeof meta.namespace === 'string' && meta.namespace !== ''
    ? `${meta.namespace}/${name}`
    : name;
}

export function resourceVersionOf(obj: KubeObject): string {
  const rv = (obj.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof rv === 'string' ? rv : '';
}

/** Exponential backoff: initial, 2×, 4×… capped at max. `attempt` starts at 1. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));
}

/**
 * A small list/watch informer: lists, delivers the differences to the handlers, watches from the
 * list's resourceVersion, re-watches when the server closes the stream, relists when the watch
 * expires (410 Gone) or fails, and backs off exponentially while the API server is unreachable.
 */
export function createInformer(source: ListWatch, options: InformerOptions): Informer {
  const cache = new Map<string, KubeObject>();
  const handlers: { [E in keyof InformerHandlers]: InformerHandlers[E][] } = {
    add: [],
    update: [],
    delete: [],
    error: [],
  };
  const { initialMs, maxMs } = options.backoff ?? { initialMs: 250, maxMs: 8_000 };
  let synced = false;
  let running: AbortController | undefined;
  let resolveSynced: () => void = () => undefined;
  const syncedPromise = new Promise<void>((resolve) => {
    resolveSynced = resolve;
  });

  const emitAdd = (obj: KubeObject): void => {
    for (const h of handlers.add) h(obj);
  };
  const emitUpdate = (obj: KubeObject, old: KubeObject): void => {
    for (const h of handlers.update) h(obj, old);
  };
  const emitDelete = (obj: KubeObject): void => {
    for (const h of handlers.delete) h(obj);
  };

  const identity = (obj: KubeObject): KubeObject => obj;
  const transform = options.transform ?? identity;
  const retain = options.retain ?? identity;
  /** Caches the object and tells the handlers; returns its key. */
  const upsert = (raw: KubeObject): string => {
    const obj = transform(raw);
    const key = objectKey(obj);
    const old = cache.get(key);
    cache.set(key, retain(obj));
    if (old === undefined) emitAdd(obj);
    else if (resourceVersionOf(old) !== resourceVersionOf(obj) || resourceVersionOf(obj) === '')
      emitUpdate(obj, old);
    return key;
  };

  /** A full list: pages are applied as they arrive, then what the list no longer has is deleted. */
  const relist = async (aborted: () => boolean): Promise<string | undefined> => {
    const seen = new Set<string>();
    const resourceVersion = await source.list((items) => {
      if (aborted()) return;
      for (const obj of items) seen.add(upsert(obj));
    });
    if (aborted()) return undefined;
    for (const [key, old] of [...cache]) {
      if (seen.has(key)) continue;
      cache.delete(key);
      emitDelete(old);
    }
    return resourceVersion;
  };

  const applyEvent = (event: RawWatchEvent, onBookmark: (rv: string) => void): void => {
    const rv = resourceVersionOf(event.object);
    if (event.type === 'ADDED' || event.type === 'MODIFIED') upsert(event.object);
    else if (event.type === 'DELETED') {
      const key = objectKey(event.object);
      const old = cache.get(key);
      cache.delete(key);
      emitDelete(old ?? retain(transform(event.object)));
    }
    if (rv !== '') onBookmark(rv);
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    const aborted = (): boolean => signal.aborted;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const listed = await relist(aborted);
        if (listed === undefined) return;
        if (!synced) {
          synced = true;
          resolveSynced();
        }
        failures = 0;
        let rv = listed;
        // Re-watch after normal closes; leave this loop (to relist) on any watch error.
        for (;;) {
          if (aborted()) return;
          const handle = source.watch(rv, (event) => {
            applyEvent(event, (next) => {
              rv = next;
            });
          });
          const onAbort = (): void => {
            handle.stop();
          };
          signal.addEventListener('abort', onAbort, { once: true });
          try {
            await handle.done;
            failures = 0;
          } finally {
            signal.removeEventListener('abort', onAbort);
          }
        }
      } catch (err) {
        if (aborted()) return;
        const gone = err instanceof KubeApiError && err.statusCode === 410;
        failures = gone ? 0 : failures + 1;
        const wait = gone ? 0 : backoffDelay(failures, initialMs, maxMs);
        for (const h of handlers.error) h(err, wait);
        if (wait > 0) await options.delay(wait, signal);
      }
    }
  };

  return {
    on(event, handler): void {
      (handlers[event] as (typeof handler)[]).push(handler);
    },
    start(): void {
      if (running !== undefined) return;
      const controller = new AbortController();
      running = controller;
      void run(controller.signal);
    },
    stop(): void {
      running?.abort();
    },
    get synced(): boolean {
      return synced;
    },
    waitForSync: () => syncedPromise,
    get: (key) => cache.get(key),
    list: () => [...cache.values()],
  };
}

/** Items handed to the informer at a time while a list streams in. */
const LIST_BATCH = 100;

/**
 * List/watch of one API collection path (e.g. `/api/v1/namespaces`) through a KubeClient. The
 * list is one request (the API server answers it from its watch cache) read as it streams in, so
 * the whole response is never held: items reach the informer in small batches while the rest of
 * the body is still arriving.
 */
export function collectionListWatch(
  client: KubeClient,
  path: string,
  query: QueryParams = {},
  readOptions: ReadOptions = {},
): ListWatch {
  return {
    async list(onPage): Promise<string> {
      let batch: KubeObject[] = [];
      const result = await client.list(
        path,
        query,
        (item, head) => {
          const kind = typeof head.kind === 'string' ? head.kind.replace(/List$/, '') : undefined;
          // Lists omit kind/apiVersion on items; put them back so caches hold full manifests.
          batch.push(
            kind === undefined ? item : { apiVersion: head.apiVersion ?? null, kind, ...item },
          );
          if (batch.length >= LIST_BATCH) {
            const full = batch;
            batch = [];
            onPage(full);
          }
        },
        readOptions,
      );
      if (batch.length > 0) onPage(batch);
      return resourceVersionOf(result);
    },
    watch(resourceVersion, onEvent): WatchHandle {
      return client.watch(
        path,
        {
          ...query,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: 240 + Math.floor(Math.random() * 120),
        },
        onEvent,
        readOptions,
      );
    },
  };
}

export function sleepWithSignal(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
