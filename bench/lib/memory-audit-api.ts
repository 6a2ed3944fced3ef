import { KubeApiError } from '../../src/kube/kube-client.js';
import type { JsonObject } from '../../src/engine/json.js';
import type { AuditApi, Discovery, ObjectPage } from '../../src/audit/run/audit-api.js';
import { identityOf } from '../../src/audit/run/object-verdict.js';
import {
  apiVersionOf,
  type DiscoveredGroupVersion,
  type TargetResource,
} from '../../src/kube/target-resources.js';

/**
 * An in-memory AuditApi for benchmarks: objects indexed by resource and namespace (a list of one
 * namespace costs that namespace's objects, not the cluster's), pagination by offset, optimistic
 * concurrency on update, an `admit` hook standing in for the mutating webhook, and an optional
 * latency per call (timers, so other work runs meanwhile, as with a real API server).
 */
export class MemoryAuditApi implements AuditApi {
  private readonly objects = new Map<string, Map<string, JsonObject[]>>();
  private rv = 1;
  admit: (object: JsonObject) => JsonObject = (o) => o;
  onUpdate: (object: JsonObject) => void = () => undefined;
  calls = { discover: 0, list: 0, get: 0, update: 0 };

  constructor(
    private readonly discovery: readonly DiscoveredGroupVersion[],
    private readonly latencyMs: number,
  ) {}

  add(target: TargetResource, object: JsonObject): void {
    const namespace = identityOf(object).namespace ?? '';
    const byNs = this.objects.get(target.resource) ?? new Map<string, JsonObject[]>();
    this.objects.set(target.resource, byNs);
    const list = byNs.get(namespace) ?? [];
    byNs.set(namespace, list);
    list.push({
      apiVersion: apiVersionOf(target),
      kind: target.kind,
      ...object,
      metadata: { ...(object.metadata as JsonObject), resourceVersion: String(this.rv++) },
    });
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.latencyMs));
  }

  private listOf(target: TargetResource, namespace: string | undefined): JsonObject[] {
    const byNs = this.objects.get(target.resource);
    if (byNs === undefined) return [];
    if (namespace !== undefined) return byNs.get(namespace) ?? [];
    return [...byNs.values()].flat();
  }

  async discover(wantGroup: (group: string) => boolean): Promise<Discovery> {
    this.calls.discover++;
    await this.wait();
    return { groupVersions: this.discovery.filter((gv) => wantGroup(gv.group)), problems: [] };
  }

  async listPage(
    target: TargetResource,
    namespace: string | undefined,
    limit: number,
    continueToken: string | undefined,
  ): Promise<ObjectPage> {
    this.calls.list++;
    await this.wait();
    const all = this.listOf(target, namespace);
    const start = continueToken === undefined ? 0 : Number(continueToken);
    return {
      items: all.slice(start, start + limit).map((o) => structuredClone(o)),
      continueToken: start + limit < all.length ? String(start + limit) : undefined,
    };
  }

  async get(
    target: TargetResource,
    namespace: string | undefined,
    name: string,
  ): Promise<JsonObject> {
    this.calls.get++;
    await this.wait();
    const found = this.listOf(target, namespace).find((o) => identityOf(o).name === name);
    if (found === undefined) throw new KubeApiError(404, 'not found');
    return structuredClone(found);
  }

  async update(target: TargetResource, object: JsonObject): Promise<JsonObject> {
    this.calls.update++;
    await this.wait();
    const { namespace, name } = identityOf(object);
    const list = this.listOf(target, namespace);
    const index = list.findIndex((o) => identityOf(o).name === name);
    const current = list[index];
    if (current === undefined) throw new KubeApiError(404, 'not found');
    const rv = (object.metadata as JsonObject).resourceVersion;
    if (rv !== (current.metadata as JsonObject).resourceVersion)
      throw new KubeApiError(409, 'the object has been modified');
    const admitted = this.admit(structuredClone(object));
    const stored = {
      ...admitted,
      metadata: { ...(admitted.metadata as JsonObject), resourceVersion: String(this.rv++) },
    };
    list[index] = stored;
    this.onUpdate(stored);
    return structuredClone(stored);
  }
}
