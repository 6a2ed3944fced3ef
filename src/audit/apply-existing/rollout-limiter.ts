import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import { jsonEqual } from '../../engine/patch/json-diff.js';
import { KubeApiError } from '../../kube/kube-client.js';
import type { AuditApi } from '../run/audit-api.js';
import { identityOf } from '../run/object-verdict.js';
import type { TargetResource } from '../../kube/target-resources.js';
import type { LimiterClock } from '../../authz/token-bucket.js';

/**
 * The workload kinds whose controllers replace Pods when the pod template changes. A ReplicaSet
 * is left out: its controller does not touch running Pods when its template changes (only new
 * Pods get the new template), so writing one restarts nothing.
 */
const ROLLING_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** Deployments without progressDeadlineSeconds get the API server's default, 600 s. */
const DEFAULT_PROGRESS_DEADLINE_S = 600;

function objectAt(value: JsonValue | undefined, ...path: string[]): JsonObject | undefined {
  let current = value;
  for (const key of path) {
    if (!isJsonObject(current)) return undefined;
    current = current[key];
  }
  return isJsonObject(current) ? current : undefined;
}

function numberAt(object: JsonObject | undefined, key: string): number | undefined {
  const value = object?.[key];
  return typeof value === 'number' ? value : undefined;
}

/**
 * Whether writing `after` over `before` starts a rollout: an apps/v1 Deployment, StatefulSet or
 * DaemonSet whose pod template changes, unless its update strategy is OnDelete (Pods keep the
 * old template until someone deletes them) or the Deployment is paused.
 */
export function startsRollout(
  target: TargetResource,
  before: JsonObject,
  after: JsonObject,
): boolean {
  if (target.group !== 'apps' || !ROLLING_KINDS.has(target.kind)) return false;
  const spec = objectAt(after, 'spec');
  if (spec?.paused === true) return false;
  const strategy = objectAt(spec, target.kind === 'Deployment' ? 'strategy' : 'updateStrategy');
  if (strategy?.type === 'OnDelete') return false;
  return !jsonEqual(
    objectAt(before, 'spec', 'template') ?? {},
    objectAt(after, 'spec', 'template') ?? {},
    false,
  );
}

/**
 * Whether a workload's rollout is over: its controller has seen the current generation and every
 * desired replica runs the new template and is ready (for a Deployment, no old replica is left).
 */
export function rolloutDone(kind: string, object: JsonObject): boolean {
  const generation = numberAt(objectAt(object, 'metadata'), 'generation') ?? 0;
  const status = objectAt(object, 'status');
  if ((numberAt(status, 'observedGeneration') ?? -1) < generation) return false;
  if (kind === 'DaemonSet') {
    const desired = numberAt(status, 'desiredNumberScheduled') ?? 0;
    return (
      (numberAt(status, 'updatedNumberScheduled') ?? 0) >= desired &&
      (numberAt(status, 'numberReady') ?? 0) >= desired
    );
  }
  const replicas = numberAt(objectAt(object, 'spec'), 'replicas') ?? 1;
  const updated = numberAt(status, 'updatedReplicas') ?? 0;
  const ready = numberAt(status, 'readyReplicas') ?? 0;
  if (updated < replicas || ready < replicas) return false;
  return kind !== 'Deployment' || (numberAt(status, 'replicas') ?? 0) <= replicas;
}

export interface RolloutLimiterOptions extends LimiterClock {
  readonly api: Pick<AuditApi, 'get'>;
  /** Workloads of one namespace rolling at a time at most. */
  readonly maxPerNamespace: number;
  /** A rollout no longer counts after this long (or the Deployment's progress deadline if shorter). */
  readonly timeoutMs: number;
  /** How often the rolling workloads are read while a write waits. */
  readonly pollMs: number;
}

interface Rollout {
  /** The object's namespace (undefined for cluster-scoped kinds, which none of ROLLING_KINDS is). */
  readonly namespace: string | undefined;
  /** Undefined while the write that starts it is in flight. */
  target?: TargetResource;
  name?: string;
  deadline: number;
}

/** Called after the write: with the stored object, or undefined when nothing was written. */
export type RolloutRelease = (stored: JsonObject | undefined) => void;

/**
 * At most `maxPerNamespace` workloads of a namespace rolling out because of apply-to-existing:
 * a write that starts a rollout waits (polling the rolling workloads with the injected delay)
 * until one of them is done, deleted, or past its deadline. Rollouts are tracked by this replica
 * only; a new leader starts counting from zero.
 */
export class RolloutLimiter {
  private readonly rolling = new Map<string, Rollout[]>();

  constructor(private readonly options: RolloutLimiterOptions) {}

  /** Rollouts counted for a namespace now (without reading anything). */
  count(namespace: string): number {
    return this.rolling.get(namespace)?.length ?? 0;
  }

  /** Waits for a free rollout slot in the object's namespace and takes it. */
  async acquire(
    target: TargetResource,
    object: JsonObject,
    signal: AbortSignal,
  ): Promise<RolloutRelease> {
    const objectNamespace = identityOf(object).namespace;
    const namespace = objectNamespace ?? '';
    for (;;) {
      const list = this.rolling.get(namespace) ?? [];
      if (list.length >= this.options.maxPerNamespace) await this.prune(list);
      if (signal.aborted) return () => undefined;
      if (list.length < this.options.maxPerNamespace) {
        const slot: Rollout = { namespace: objectNamespace, deadline: Number.POSITIVE_INFINITY };
        list.push(slot);
        this.rolling.set(namespace, list);
        return (stored) => {
          this.settle(namespace, slot, target, stored);
        };
      }
      // Poll, or wake at the first deadline when that comes sooner.
      const firstDeadline = Math.min(...list.map((slot) => slot.deadline));
      const untilDeadline = Math.max(0, firstDeadline - this.options.now());
      await this.options.delay(Math.min(this.options.pollMs, untilDeadline), signal);
    }
  }

  private settle(
    namespace: string,
    slot: Rollout,
    target: TargetResource,
    stored: JsonObject | undefined,
  ): void {
    const list = this.rolling.get(namespace) ?? [];
    if (stored === undefined) {
      this.drop(namespace, list, slot);
      return;
    }
    const deadlineS =
      target.kind === 'Deployment'
        ? (numberAt(objectAt(stored, 'spec'), 'progressDeadlineSeconds') ??
          DEFAULT_PROGRESS_DEADLINE_S)
        : Number.POSITIVE_INFINITY;
    slot.target = target;
    slot.name = identityOf(stored).name;
    slot.deadline = this.options.now() + Math.min(this.options.timeoutMs, deadlineS * 1000);
  }

  /** Reads each rolling workload once and forgets those that are done, gone or overdue. */
  private async prune(list: Rollout[]): Promise<void> {
    for (const slot of [...list]) {
      const { target, name } = slot;
      if (target === undefined || name === undefined) continue;
      let done = this.options.now() >= slot.deadline;
      if (!done) {
        try {
          done = rolloutDone(target.kind, await this.options.api.get(target, slot.namespace, name));
        } catch (err) {
          // Deleted: nothing rolls any more. Other errors: keep counting it until its deadline.
          done = err instanceof KubeApiError && err.statusCode === 404;
        }
      }
      if (done) {
        const index = list.indexOf(slot);
        if (index >= 0) list.splice(index, 1);
      }
    }
  }

  private drop(namespace: string, list: Rollout[], slot: Rollout): void {
    const index = list.indexOf(slot);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.rolling.delete(namespace);
  }
}
