import type { JsonObject } from '../engine/json.js';
import {
  KubeApiError,
  type KubeClient,
  type KubeRequest,
  type WatchHandle,
} from './kube-client.js';

/**
 * An in-memory object store speaking the few verbs the controller uses (GET, POST, PUT with
 * resourceVersion conflicts, merge PATCH), for unit tests of leader election and the cert
 * manager. Not an API server: no watch, no field semantics beyond what those tests need.
 */
export class FakeKube implements KubeClient {
  readonly objects = new Map<string, JsonObject>();
  readonly calls: string[] = [];
  private rv = 1;
  down = false;

  request(req: KubeRequest): Promise<JsonObject> {
    this.calls.push(`${req.method} ${req.path}`);
    if (this.down) return Promise.reject(new KubeApiError(0, 'connection refused'));
    const body = req.body as JsonObject | undefined;
    const path = req.path;
    const stored = this.objects.get(path);
    switch (req.method) {
      case 'GET':
        return stored === undefined
          ? Promise.reject(new KubeApiError(404, `${path} not found`))
          : Promise.resolve(clone(stored));
      case 'POST': {
        const meta = (body?.metadata ?? {}) as { name?: string };
        const key = `${path}/${meta.name ?? ''}`;
        if (this.objects.has(key))
          return Promise.reject(new KubeApiError(409, `${key} already exists`));
        return Promise.resolve(this.store(key, body ?? {}));
      }
      case 'PUT': {
        if (stored === undefined) return Promise.reject(new KubeApiError(404, `${path} not found`));
        const want = (body?.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
        const have = (stored.metadata as { resourceVersion?: string }).resourceVersion;
        if (want !== undefined && want !== have)
          return Promise.reject(new KubeApiError(409, 'conflict'));
        return Promise.resolve(this.store(path, body ?? {}));
      }
      case 'PATCH': {
        if (stored === undefined) return Promise.reject(new KubeApiError(404, `${path} not found`));
        return Promise.resolve(this.store(path, { ...stored, ...(body ?? {}) }));
      }
      case 'DELETE':
        this.objects.delete(path);
        return Promise.resolve({});
    }
  }

  /** The objects stored directly under `path` (POSTed to it), one by one. */
  list(
    path: string,
    _query: unknown,
    onItem: (item: JsonObject, head: JsonObject) => void,
  ): Promise<JsonObject> {
    this.calls.push(`LIST ${path}`);
    if (this.down) return Promise.reject(new KubeApiError(0, 'connection refused'));
    const head = { kind: 'List', apiVersion: 'v1' };
    for (const [key, obj] of this.objects)
      if (key.startsWith(`${path}/`) && !key.slice(path.length + 1).includes('/'))
        onItem(clone(obj), head);
    return Promise.resolve({ ...head, metadata: { resourceVersion: String(this.rv) } });
  }

  watch(): WatchHandle {
    return { stop: () => undefined, done: new Promise(() => undefined) };
  }

  private store(key: string, obj: JsonObject): JsonObject {
    const meta = (obj.metadata ?? {}) as JsonObject;
    const saved = { ...clone(obj), metadata: { ...meta, resourceVersion: String(++this.rv) } };
    this.objects.set(key, saved);
    return clone(saved);
  }
}

function clone(obj: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(obj)) as JsonObject;
}
