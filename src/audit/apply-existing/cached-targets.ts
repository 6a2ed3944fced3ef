import type { TargetResource } from '../../kube/target-resources.js';

export interface CachedTargetsOptions {
  /** A full discovery sweep: the resources the dragnet webhook receives. */
  readonly load: () => Promise<readonly TargetResource[]>;
  /** A sweep is reused for this long. */
  readonly ttlMs: number;
  readonly now: () => number;
}

export interface CachedTargets {
  /** The cached resources, or a fresh sweep when they are older than the TTL or invalidated. */
  get(): Promise<readonly TargetResource[]>;
  /** Forgets the cached sweep (a resource it listed was not found, say); the next get sweeps again. */
  invalidate(): void;
}

/**
 * Discovery shared by every apply-to-existing job: one sweep serves all jobs for `ttlMs`
 * (resources appear and disappear rarely; a CRD installed meanwhile is seen within the TTL).
 * Jobs asking while a sweep is under way wait for that sweep. A failed sweep is not cached: the
 * next job sweeps again.
 */
export function createCachedTargets(options: CachedTargetsOptions): CachedTargets {
  let cached: { readonly at: number; readonly targets: readonly TargetResource[] } | undefined;
  let loading: Promise<readonly TargetResource[]> | undefined;
  let generation = 0;

  return {
    get(): Promise<readonly TargetResource[]> {
      if (cached !== undefined && options.now() - cached.at < options.ttlMs)
        return Promise.resolve(cached.targets);
      if (loading !== undefined) return loading;
      const started = generation;
      const at = options.now();
      loading = options.load().then(
        (targets) => {
          loading = undefined;
          // An invalidation during the sweep may concern what the sweep already read: keep it
          // for this caller but do not cache it.
          if (started === generation) cached = { at, targets };
          return targets;
        },
        (err: unknown) => {
          loading = undefined;
          throw err;
        },
      );
      return loading;
    },
    invalidate(): void {
      cached = undefined;
      generation++;
    },
  };
}
