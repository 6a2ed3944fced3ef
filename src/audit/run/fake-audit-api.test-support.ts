import type { JsonObject } from '../../engine/json.js';
import { KubeApiError } from '../../kube/kube-client.js';
import type { AuditApi, Discovery, RuleReporter } from './audit-api.js';
import { identityOf } from './object-verdict.js';
import {
  apiVersionOf,
  collectionPath,
  type DiscoveredGroupVersion,
  type TargetResource,
} from '../../kube/target-resources.js';

export const DEPLOYMENTS: TargetResource = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};
export const CONFIGMAPS: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
export const NAMESPACES_T: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * An in-memory AuditApi for unit tests: objects per resource, real pagination (`limit` /
 * `continue`), forbidden collections (403), resourceVersion conflicts on update, and an `admit`
 * hook standing in for the mutating webhook on updates. Not an API server.
 */
export class FakeAuditApi implements AuditApi {
  private readonly objects = new Map<string, JsonObject[]>();
  private rv = 100;
  /** Collection paths (see collectionPath) that answer 403. */
  readonly forbidden = new Set<string>();
  readonly calls: string[] = [];
  /** What the "webhook" does to an updated object; identity by default. */
  admit: (object: JsonObject) => JsonObject = (o) => o;
  /** Called before an update is stored (tests change objects concurrently here). */
  beforeUpdate: (object: JsonObject) => void = () => undefined;
  discovery: DiscoveredGroupVersion[] = [];

  add(target: TargetResource, object: JsonObject): void {
    const list = this.objects.get(target.resource) ?? [];
    const { name, namespace } = identityOf(object);
    const stored = clone({
      ...object,
      metadata: {
        ...(object.metadata as JsonObject),
        uid: `uid-${target.resource}-${namespace ?? ''}-${name}`,
        resourceVersion: String(++this.rv),
      },
    });
    list.push(stored);
    this.objects.set(target.resource, list);
  }

  find(
    target: TargetResource,
    namespace: string | undefined,
    name: string,
  ): JsonObject | undefined {
    return (this.objects.get(target.resource) ?? []).find((o) => {
      const id = identityOf(o);
      return id.name === name && id.namespace === namespace;
    });
  }

  /** Changes an object in place as another client would (new resourceVersion). */
  touch(
    target: TargetResource,
    namespace: string | undefined,
    name: string,
    change: (o: JsonObject) => void,
  ): void {
    const found = this.find(target, namespace, name);
    if (found === undefined) throw new Error('no such object');
    change(found);
    (found.metadata as JsonObject).resourceVersion = String(++this.rv);
  }

  discover(wantGroup: (group: string) => boolean): Promise<Discovery> {
    return Promise.resolve({
      groupVersions: this.discovery.filter((gv) => wantGroup(gv.group)),
      problems: [],
    });
  }

  listPage(
    target: TargetResource,
    namespace: string | undefined,
    limit: number,
    continueToken: string | undefined,
  ): Promise<{ items: JsonObject[]; continueToken: string | undefined }> {
    const path = collectionPath(target, namespace);
    this.calls.push(`LIST ${path} limit=${String(limit)} continue=${continueToken ?? ''}`);
    if (this.forbidden.has(path))
      return Promise.reject(new KubeApiError(403, `${path} is forbidden`));
    const all = (this.objects.get(target.resource) ?? []).filter(
      (o) => namespace === undefined || identityOf(o).namespace === namespace,
    );
    const start = continueToken === undefined ? 0 : Number(continueToken);
    const items = all.slice(start, start + limit).map((o) => ({
      apiVersion: apiVersionOf(target),
      kind: target.kind,
      ...clone(o),
    }));
    const next = start + limit < all.length ? String(start + limit) : undefined;
    return Promise.resolve({ items, continueToken: next });
  }

  get(target: TargetResource, namespace: string | undefined, name: string): Promise<JsonObject> {
    this.calls.push(`GET ${collectionPath(target, namespace)}/${name}`);
    const found = this.find(target, namespace, name);
    if (found === undefined) return Promise.reject(new KubeApiError(404, 'not found'));
    return Promise.resolve({
      apiVersion: apiVersionOf(target),
      kind: target.kind,
      ...clone(found),
    });
  }

  update(target: TargetResource, object: JsonObject): Promise<JsonObject> {
    const { namespace, name } = identityOf(object);
    this.calls.push(`PUT ${collectionPath(target, namespace)}/${name}`);
    this.beforeUpdate(object);
    const path = collectionPath(target, namespace);
    if (this.forbidden.has(path)) return Promise.reject(new KubeApiError(403, 'forbidden'));
    const list = this.objects.get(target.resource) ?? [];
    const index = list.findIndex((o) => {
      const id = identityOf(o);
      return id.name === name && id.namespace === namespace;
    });
    const current = list[index];
    if (current === undefined) return Promise.reject(new KubeApiError(404, 'not found'));
    const want = (object.metadata as JsonObject).resourceVersion;
    if (want !== (current.metadata as JsonObject).resourceVersion)
      return Promise.reject(new KubeApiError(409, 'the object has been modified'));
    const admitted = this.admit(clone(object));
    const changed = JSON.stringify(admitted) !== JSON.stringify(object);
    const stored = changed
      ? {
          ...admitted,
          metadata: { ...(admitted.metadata as JsonObject), resourceVersion: String(++this.rv) },
        }
      : admitted;
    list[index] = clone(stored);
    return Promise.resolve(clone(stored));
  }

  /** Number of PUTs per object name. */
  updates(name: string): number {
    return this.calls.filter((c) => c.startsWith('PUT ') && c.endsWith(`/${name}`)).length;
  }
}

/** A RuleReporter that records what it was asked to write. */
export class RecordingReporter implements RuleReporter {
  readonly statuses: { rule: string; status: JsonObject }[] = [];
  readonly events: { rule: string; type: string; reason: string; message: string }[] = [];

  patchStatus(namespace: string, name: string, status: JsonObject): Promise<void> {
    this.statuses.push({ rule: `${namespace}/${name}`, status: clone(status) });
    return Promise.resolve();
  }

  event(
    rule: { namespace: string; name: string },
    event: { type: string; reason: string; message: string },
  ): Promise<void> {
    this.events.push({ rule: `${rule.namespace}/${rule.name}`, ...event });
    return Promise.resolve();
  }
}
