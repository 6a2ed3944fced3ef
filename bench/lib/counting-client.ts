import type { KubeClient } from '../../src/kube/kube-client.js';

/** Requests a KubeClient made, by kind: `POST /apis/authorization.k8s.io/...` and so on. */
export interface RequestCounts {
  readonly total: number;
  readonly byPath: Readonly<Record<string, number>>;
}

/**
 * A KubeClient that counts what passes through it (requests, lists and watches started), for
 * benchmarks that must show how many API requests the operator makes per admission.
 */
export function countingClient(inner: KubeClient): {
  readonly client: KubeClient;
  snapshot(): RequestCounts;
  /** Requests since `before`, by method and path (object names dropped). */
  since(before: RequestCounts): RequestCounts;
} {
  const byPath = new Map<string, number>();
  let total = 0;
  const count = (what: string): void => {
    total++;
    byPath.set(what, (byPath.get(what) ?? 0) + 1);
  };
  const client: KubeClient = {
    request: (req) => {
      count(`${req.method} ${req.path.replace(/\/namespaces\/[^/]+/, '/namespaces/*')}`);
      return inner.request(req);
    },
    list: (path, query, onItem, options) => {
      count(`LIST ${path}`);
      return inner.list(path, query, onItem, options);
    },
    watch: (path, query, onEvent, options) => {
      count(`WATCH ${path}`);
      return inner.watch(path, query, onEvent, options);
    },
  };
  const snapshot = (): RequestCounts => ({ total, byPath: Object.fromEntries(byPath) });
  return {
    client,
    snapshot,
    since(before): RequestCounts {
      const now = snapshot();
      const diff: Record<string, number> = {};
      for (const [path, n] of Object.entries(now.byPath)) {
        const d = n - (before.byPath[path] ?? 0);
        if (d > 0) diff[path] = d;
      }
      return { total: now.total - before.total, byPath: diff };
    },
  };
}
