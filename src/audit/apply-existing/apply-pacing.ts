import type { JsonObject } from '../../engine/json.js';
import type { WriteLimiter } from './apply-existing.js';
import { RolloutLimiter, startsRollout } from './rollout-limiter.js';
import type { TargetResource } from '../../kube/target-resources.js';
import { TokenBucket, type LimiterClock } from '../../authz/token-bucket.js';

export interface ApplyPacingSettings {
  /** Objects one namespace's jobs update per second at most. */
  readonly ratePerSecond: number;
  /** Objects all jobs together update per second at most. */
  readonly maxRatePerSecond: number;
  /** Workloads of one namespace rolling out at a time at most. */
  readonly maxRollouts: number;
  /** A rollout stops counting after this long (Deployments: their progress deadline if shorter). */
  readonly rolloutTimeoutMs: number;
  /** How often rolling workloads are read while a write waits for one of them. */
  readonly rolloutPollMs: number;
}

export interface ApplyPacingOptions extends ApplyPacingSettings, LimiterClock {
  readonly api: ConstructorParameters<typeof RolloutLimiter>[0]['api'];
}

export interface ApplyPacing {
  /** The limiter for the jobs of rules in `namespace` (its rate bucket, the shared ceiling). */
  forNamespace(namespace: string): WriteLimiter;
  /**
   * Paces the start of a job like one write: a job whose objects all conform writes its status
   * twice and an Event, and ten thousand of them must not flood the API server either.
   */
  admitJob(namespace: string, signal: AbortSignal): Promise<void>;
}

/**
 * The pacing of every apply-to-existing write: first a rollout slot when the write changes a
 * workload's pod template (may wait for minutes), then a token of the rule namespace's bucket,
 * then a token of the shared bucket (the ceiling across namespaces). Namespaces each ask for one
 * token at a time and the shared bucket serves in asking order, so under the ceiling the writes
 * alternate between the namespaces that have work.
 */
export function createApplyPacing(options: ApplyPacingOptions): ApplyPacing {
  const clock = { now: options.now, delay: options.delay };
  const shared = new TokenBucket({ ...clock, ratePerSecond: options.maxRatePerSecond, burst: 1 });
  // One small bucket per namespace that ever had a job (bounded by the cluster's namespaces).
  const buckets = new Map<string, TokenBucket>();
  const rollouts = new RolloutLimiter({
    ...clock,
    api: options.api,
    maxPerNamespace: options.maxRollouts,
    timeoutMs: options.rolloutTimeoutMs,
    pollMs: options.rolloutPollMs,
  });

  const bucketOf = (namespace: string): TokenBucket => {
    let bucket = buckets.get(namespace);
    if (bucket === undefined) {
      bucket = new TokenBucket({ ...clock, ratePerSecond: options.ratePerSecond, burst: 1 });
      buckets.set(namespace, bucket);
    }
    return bucket;
  };

  const tokens = async (namespace: string, signal: AbortSignal): Promise<void> => {
    if (!signal.aborted) await bucketOf(namespace).take(signal);
    if (!signal.aborted) await shared.take(signal);
  };

  return {
    admitJob: tokens,
    forNamespace(namespace: string): WriteLimiter {
      return {
        async acquire(
          target: TargetResource,
          current: JsonObject,
          patched: JsonObject,
          signal: AbortSignal,
        ): Promise<(stored: JsonObject | undefined) => void> {
          const release = startsRollout(target, current, patched)
            ? await rollouts.acquire(target, current, signal)
            : (): void => undefined;
          await tokens(namespace, signal);
          return release;
        },
      };
    },
  };
}
