import { MODRULE_GROUP, MODRULE_PLURAL, MODRULE_VERSION } from '../api/index.js';
import type { JsonObject } from '../engine/json.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import { isStatus, type KubeClient } from '../kube/kube-client.js';
import type { RuleLoadResult } from '../rules/load-modrule.js';

export interface ReadyCondition {
  readonly type: 'Ready';
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime: string;
}

export interface StatusWriterOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  /** Wall clock (ms since epoch) for lastTransitionTime. */
  readonly now: () => number;
  /**
   * Whether writes may go out now (the operator: this replica leads and its initial sync is
   * complete). While false, results are remembered and written after the next `resync`.
   */
  readonly mayWrite: () => boolean;
  readonly concurrency?: number;
}

function readyConditionOf(status: JsonObject | undefined): JsonObject | undefined {
  const conditions = status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find(
    (c): c is JsonObject =>
      typeof c === 'object' && c !== null && !Array.isArray(c) && c.type === 'Ready',
  );
}

/** The status a load result should produce, or undefined when the object already carries it. */
export function desiredStatus(result: RuleLoadResult, now: number): JsonObject | undefined {
  const want = result.ready ? 'True' : 'False';
  const current = readyConditionOf(result.currentStatus);
  const upToDate =
    current !== undefined &&
    current.status === want &&
    current.reason === result.reason &&
    current.message === result.message &&
    result.currentStatus?.observedGeneration === (result.generation ?? null);
  if (upToDate) return undefined;
  const since =
    current !== undefined &&
    current.status === want &&
    typeof current.lastTransitionTime === 'string'
      ? current.lastTransitionTime
      : new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition: ReadyCondition = {
    type: 'Ready',
    status: want,
    reason: result.reason,
    message: result.message.slice(0, 32_000),
    ...(result.generation === undefined ? {} : { observedGeneration: result.generation }),
    lastTransitionTime: since,
  };
  return { observedGeneration: result.generation ?? null, conditions: [{ ...condition }] };
}

/**
 * Writes each ModRule's `Ready` condition and `observedGeneration` through the status
 * subresource (merge patch), from the leader only, with bounded concurrency. The latest result
 * per rule wins; results that are already reflected on the object are not written.
 */
export class StatusWriter {
  private readonly latest = new Map<string, RuleLoadResult>();
  private readonly queue = new Set<string>();
  private active = 0;

  constructor(private readonly options: StatusWriterOptions) {}

  record(key: string, result: RuleLoadResult | undefined): void {
    if (result === undefined) {
      this.latest.delete(key);
      this.queue.delete(key);
      return;
    }
    this.latest.set(key, result);
    this.queue.add(key);
    this.pump();
  }

  /** Call when writes become allowed (see `mayWrite`): everything remembered is (re)considered. */
  resync(): void {
    for (const key of this.latest.keys()) this.queue.add(key);
    this.pump();
  }

  get pending(): number {
    return this.queue.size + this.active;
  }

  private pump(): void {
    if (!this.options.mayWrite()) return;
    const limit = this.options.concurrency ?? 8;
    while (this.active < limit && this.queue.size > 0) {
      const [key] = this.queue;
      if (key === undefined) return;
      this.queue.delete(key);
      const result = this.latest.get(key);
      if (result === undefined) continue;
      const status = desiredStatus(result, this.options.now());
      if (status === undefined) continue;
      this.active++;
      void this.write(result, status).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private async write(result: RuleLoadResult, status: JsonObject): Promise<void> {
    const path = `/apis/${MODRULE_GROUP}/${MODRULE_VERSION}/namespaces/${result.namespace}/${MODRULE_PLURAL}/${result.name}/status`;
    try {
      await this.options.client.request({
        method: 'PATCH',
        path,
        body: { status },
        contentType: 'application/merge-patch+json',
        discardResponse: true,
      });
    } catch (err) {
      if (isStatus(err, 404) || isStatus(err, 409)) return;
      this.options.logger.warn(
        { rule: `${result.namespace}/${result.name}`, err: describeError(err) },
        'could not write ModRule status',
      );
    }
  }
}
