import type { TemplateLimits } from '../engine/template/index.js';
import type { WorkLimits } from '../engine/work-limits.js';

export interface WebhookLimits {
  /** Largest accepted request body, in bytes. */
  readonly bodyLimitBytes: number;
  /**
   * Bytes the bodies of all requests in progress may reserve together (see body-budget.ts);
   * when unset, 64 MiB or four bodies at the limit, whichever is more (inFlightBodyBytes()).
   */
  readonly inFlightBodyBytes?: number;
  /**
   * A dragnet request that has already waited longer than this (from the moment its first byte
   * was handled to the moment evaluation would start) is allowed unchanged with a warning instead
   * of being evaluated: the API server has given up on it or is about to.
   */
  readonly deadlineMs: number;
  /** Per-request template limits handed to the engine. */
  readonly template: Partial<TemplateLimits>;
  /**
   * Work budget of one evaluation (units and milliseconds per rule, per namespace and per
   * request); unset fields take DEFAULT_WORK_LIMITS. A rule over its budget fails like any
   * failing rule: skipped, logged, counted and named in a warning, the others still apply.
   */
  readonly work: Partial<WorkLimits>;
  /**
   * Milliseconds of rule evaluation after which a dragnet request yields to the event loop (at
   * its next rule boundary) so that other requests are answered in between; DEFAULT_SLICE_MS
   * when unset.
   */
  readonly sliceMs?: number;
  /** Bounds of the dry-run worker thread; unset fields take DEFAULT_DRYRUN_WORKER_LIMITS. */
  readonly dryRun?: Partial<DryRunWorkerLimits>;
}

/** See WebhookLimits.sliceMs: well under the 10 ms p99 the webhook keeps for normal traffic. */
export const DEFAULT_SLICE_MS = 2;

/**
 * `PUT /v1/dryrun` runs in one worker thread, off the event loop that answers admission requests
 * (docs/hostile-input.md). These bound what one dry run, and a crowd of them, may take from it.
 */
export interface DryRunWorkerLimits {
  /**
   * Milliseconds one dry run may spend in the worker (from the moment it is handed over to its
   * answer). A dry run still running then is answered WORK_LIMIT and the worker is stopped and
   * replaced.
   */
  readonly deadlineMs: number;
  /** Dry runs that may wait for the worker; more are answered SERVER_BUSY (503) at once. */
  readonly queueLength: number;
  /** Old-generation heap of the worker, in MB (its `resourceLimits.maxOldGenerationSizeMb`). */
  readonly heapMb: number;
}

export const DEFAULT_DRYRUN_WORKER_LIMITS: DryRunWorkerLimits = Object.freeze({
  deadlineMs: 5000,
  queueLength: 16,
  heapMb: 256,
});

export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = Object.freeze({
  bodyLimitBytes: 3 * 1024 * 1024,
  deadlineMs: 8000,
  template: Object.freeze({}),
  work: Object.freeze({}),
  dryRun: DEFAULT_DRYRUN_WORKER_LIMITS,
});
