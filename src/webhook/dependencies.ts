import type { RuleFailure } from '../engine/evaluate.js';
import type { JsonObject } from '../engine/json.js';
import type { RuleStore } from '../engine/store.js';
import type { TemplateLimits } from '../engine/template/index.js';
import type { WorkLimits } from '../engine/work-meter.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { DryRunRunnerFactory } from './dryrun-runner.js';
import type { PlaygroundAssets } from './playground-assets.js';
import type { HelperThreadPriority } from './thread-priority.js';

/** In-memory manifests for `syntheticRefs` (filled from informers by the operator, files or nothing standalone). */
export interface SyntheticRefLookups {
  namespace(name: string): JsonObject | undefined;
  node(name: string): JsonObject | undefined;
}

/**
 * Records the node of a scheduled Pod. The implementation (operator) checks the Pod's
 * `ref.kubemod.io/inject-node-ref` annotation and, when it is "true", annotates the Pod with
 * `ref.kubemod.io/nodename`. Called off the request path; failures are logged.
 */
export interface NodeRefBinder {
  bind(namespace: string, podName: string, nodeName: string): Promise<void>;
}

/** What the webhook knows about the request in which a rule failed. */
export interface RuleFailureContext {
  readonly uid: string;
  readonly operation: string;
  readonly kind: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
}

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

/** How long work (a large body's parse, a request's rules) shares the webhook's event loop. */
export interface LoopSlicing {
  /** Work about this long, then yield. */
  readonly sliceMs: number;
  /** Milliseconds. */
  readonly clock: () => number;
  /** Resolves on a later turn of the event loop, after pending I/O. */
  readonly yieldToLoop: () => Promise<void>;
}

/** The slicing of `deps`: its limits' sliceMs, its clock, its yield (setImmediate by default). */
export function loopSlicing(
  deps: Pick<WebhookDependencies, 'limits' | 'clock' | 'yieldToLoop'>,
): LoopSlicing {
  return {
    sliceMs: deps.limits.sliceMs ?? DEFAULT_SLICE_MS,
    clock: deps.clock ?? ((): number => performance.now()),
    yieldToLoop: deps.yieldToLoop ?? nextTurn,
  };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

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

export interface WebhookDependencies {
  /** The current rule store (a getter: the standalone source swaps stores on reload). */
  readonly store: () => RuleStore;
  readonly refs: SyntheticRefLookups;
  readonly nodeRefs?: NodeRefBinder;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Milliseconds; defaults to performance.now-based monotonic time. */
  readonly clock?: () => number;
  /** How a sliced evaluation yields to the event loop; defaults to setImmediate. */
  readonly yieldToLoop?: () => Promise<void>;
  /** True once the rule source has completed its initial load. */
  readonly ready: () => boolean;
  readonly onRuleFailure?: (failure: RuleFailure, context: RuleFailureContext) => void;
  readonly limits: WebhookLimits;
  readonly clusterNamespace: string;
  /**
   * Serve `PUT /v1/dryrun` (default true). The operator turns it off unless asked: the route
   * evaluates rules sent by whoever can reach the webhook port.
   */
  readonly dryRun?: boolean;
  /**
   * Makes the runner of `PUT /v1/dryrun` (default: createWorkerDryRunRunner, a worker thread
   * started on the first dry run). Tests may run dry runs in process (inProcessDryRunRunner).
   */
  readonly dryRunRunner?: DryRunRunnerFactory;
  /** Lowered again right after the dry-run worker thread starts (thread-priority.ts). */
  readonly helperThreads?: HelperThreadPriority;
  /**
   * The playground page's files, served at `/` (GET/HEAD) when set: `kubemod-ts serve` only. The
   * operator never sets it, so its webhook port answers nothing but the webhooks (and the dryrun
   * API when enabled).
   */
  readonly playground?: PlaygroundAssets;
}
