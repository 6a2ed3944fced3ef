import type { JsonObject } from '../../engine/json.js';
import { describeError } from '../../errors/catalog.js';
import { KubeApiError } from '../../kube/kube-client.js';
import type { AuditApi, ObjectPage } from './audit-api.js';
import { mapBounded } from './bounded.js';
import { identityOf } from './object-verdict.js';
import { isIgnoredNamespace, type ListTask } from './scope-plan.js';
import { resourceLabel, type TargetResource } from '../../kube/target-resources.js';

/** A collection (or part of one) that could not be read; the scan goes on without it. */
export interface Unreadable {
  /** kubectl's resource name, e.g. `deployments.apps`. */
  readonly resource: string;
  /** The kind of the objects that could not be listed (absent for discovery problems). */
  readonly kind?: string | undefined;
  /** The namespace listed; undefined for all namespaces or cluster-scoped. */
  readonly namespace: string | undefined;
  /** HTTP status (403 forbidden, …; 0 when the API server could not be reached). */
  readonly status: number;
  readonly reason: string;
}

export interface ScanOptions {
  readonly api: AuditApi;
  readonly tasks: readonly ListTask[];
  /** Namespace manifests by name (for the ignore label), when known. */
  readonly namespaces: ReadonlyMap<string, JsonObject> | undefined;
  /** Items per list request (`limit`). */
  readonly pageSize: number;
  /** Collections listed at once. */
  readonly concurrency: number;
  readonly signal?: AbortSignal | undefined;
  /** Gives the event loop a turn (the operator's webhook shares it); called every few objects. */
  readonly yieldNow?: (() => Promise<void>) | undefined;
  /** Called once per object (an object served under two groups, same uid, only once). */
  readonly onObject: (object: JsonObject, target: TargetResource) => Promise<void> | void;
  readonly onUnreadable: (entry: Unreadable) => void;
  /** Called after each collection is done (progress). */
  readonly onTaskDone?: (() => void) | undefined;
}

export interface ScanCounts {
  /** Objects handed to onObject. */
  readonly objects: number;
  /** Objects skipped because their namespace (or they, for Namespaces) carry the ignore label. */
  readonly ignored: number;
}

const YIELD_EVERY = 25;

function statusOf(err: unknown): number {
  return err instanceof KubeApiError ? err.statusCode : 0;
}

/**
 * Lists every collection of the plan page by page (`limit`/`continue`), a few at once, and hands
 * each object to `onObject`, skipping what the dragnet webhook would not see: objects in
 * namespaces labelled admission.kubemod.io/ignore=true and Namespaces carrying the label. A list
 * across all namespaces that is forbidden falls back to the task's namespaces one by one. What
 * cannot be read is reported through `onUnreadable`, never thrown; an error `onObject` throws
 * ends the scan and is thrown. Objects are not kept.
 */
export async function scanObjects(options: ScanOptions): Promise<ScanCounts> {
  // The same object can be served under two API groups (Ingresses in extensions and
  // networking.k8s.io on old clusters): uids are remembered only for kinds listed under more than
  // one resource, so memory does not grow with the number of objects otherwise.
  const resourcesOfKind = new Map<string, Set<string>>();
  for (const task of options.tasks) {
    const set = resourcesOfKind.get(task.target.kind) ?? new Set<string>();
    set.add(resourceLabel(task.target));
    resourcesOfKind.set(task.target.kind, set);
  }
  const shared = new Set(
    [...resourcesOfKind].filter(([, resources]) => resources.size > 1).map(([kind]) => kind),
  );
  const seen = new Set<string>();
  let objects = 0;
  let ignored = 0;
  let sinceYield = 0;
  const aborted = (): boolean => options.signal?.aborted === true;

  const skip = (object: JsonObject, target: TargetResource): boolean => {
    const { namespace } = identityOf(object);
    // The webhook's namespaceSelector is matched against a Namespace object's own labels.
    if (target.kind === 'Namespace' && target.group === '') return isIgnoredNamespace(object);
    return namespace !== undefined && isIgnoredNamespace(options.namespaces?.get(namespace));
  };

  /** Lists one collection; resolves the list error, if any. Errors of onObject propagate. */
  const listAll = async (
    target: TargetResource,
    namespace: string | undefined,
  ): Promise<{ error: unknown } | undefined> => {
    let token: string | undefined;
    do {
      let page: ObjectPage;
      try {
        page = await options.api.listPage(target, namespace, options.pageSize, token);
      } catch (error) {
        return { error };
      }
      for (const object of page.items) {
        if (aborted()) return undefined;
        const { uid } = identityOf(object);
        if (uid !== undefined && shared.has(target.kind)) {
          if (seen.has(uid)) continue;
          seen.add(uid);
        }
        if (skip(object, target)) {
          ignored++;
          continue;
        }
        objects++;
        await options.onObject(object, target);
        if (++sinceYield >= YIELD_EVERY && options.yieldNow !== undefined) {
          sinceYield = 0;
          await options.yieldNow();
        }
      }
      token = page.continueToken;
    } while (token !== undefined && !aborted());
    return undefined;
  };

  const unreadable = (
    target: TargetResource,
    namespace: string | undefined,
    err: unknown,
  ): void => {
    options.onUnreadable({
      resource: resourceLabel(target),
      kind: target.kind,
      namespace,
      status: statusOf(err),
      reason: describeError(err),
    });
  };

  await mapBounded(options.tasks, options.concurrency, async (task) => {
    if (aborted()) return;
    const failed = await listAll(task.target, task.namespace);
    if (failed !== undefined) {
      const fallback = task.namespace === undefined ? task.fallbackNamespaces : [];
      if (statusOf(failed.error) !== 403 || fallback.length === 0) {
        unreadable(task.target, task.namespace, failed.error);
      } else {
        for (const ns of fallback) {
          if (aborted()) break;
          const nsFailed = await listAll(task.target, ns);
          if (nsFailed !== undefined) unreadable(task.target, ns, nsFailed.error);
        }
      }
    }
    options.onTaskDone?.();
  });
  return { objects, ignored };
}
