import type { AuthorSigner } from '../authz/author-signature.js';
import type { RuleStore } from '../engine/store.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { DryRunRunnerFactory } from './dryrun/dryrun-runner.js';
import type { PlaygroundAssets } from './playground/playground-assets.js';
import type { ServerRules } from './playground/playground-server-rules.js';
import type { RuleFailure, SyntheticRefLookups } from '../engine/evaluate.js';
import type { HelperThreadPriority } from './http/thread-priority.js';
import type { WebhookLimits } from './webhook-limits.js';
import type { ClusterView, ObjectKey } from '../engine/cluster/cluster-view.js';
import type { AskResolver } from '../engine/cluster/resolve-loop.js';
import type { UserInfo } from '../authz/author-record.js';

// Defined beside the code that uses them (which must not import this file back: that made an
// import cycle), and re-exported here for the webhook's callers.
export type { SyntheticRefLookups } from '../engine/evaluate.js';
export { loopSlicing, type LoopSlicing } from './loop-slicing.js';
export {
  DEFAULT_DRYRUN_WORKER_LIMITS,
  DEFAULT_SLICE_MS,
  DEFAULT_WEBHOOK_LIMITS,
  type DryRunWorkerLimits,
  type WebhookLimits,
} from './webhook-limits.js';

/**
 * Records the node of a scheduled Pod. The implementation (operator) trusts nothing of the
 * review but the names: it reads the Pod from the API server and, when its
 * `ref.kubemod.io/inject-node-ref` annotation is "true" and its `spec.nodeName` is the node named,
 * annotates it with `ref.kubemod.io/nodename`. Called off the request path; failures are logged.
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

/**
 * Reviews, when a ModRule is admitted, whether the requesting user may `get` what one of its
 * literal lookups names (docs/lookups-operator.md). The operator asks the API server.
 */
export interface LookupAdmissionCheck {
  /** Undefined when `user` may get the object; otherwise why not (for a field error). */
  refusal(user: UserInfo, key: ObjectKey): Promise<string | undefined>;
}

export interface WebhookDependencies {
  /** The current rule store (a getter: the standalone source swaps stores on reload). */
  readonly store: () => RuleStore;
  readonly refs: SyntheticRefLookups;
  /**
   * What rules may read of the cluster (`lookup`, owner helpers, `external`; docs/lookups.md):
   * the operator's caches, or `serve --cluster`. Absent: every lookup fails as unavailable.
   */
  readonly cluster?: ClusterView | undefined;
  /** Resolves lookups that answered `pending` (access reviews, provider calls) between rounds. */
  readonly askResolver?: AskResolver | undefined;
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
   * Signs the author records the ModRule mutating webhook writes (the operator's key, from its
   * own Secret). Without it (`kubemod-ts serve`) records are written unsigned: read as unknown.
   */
  readonly authorSigner?: AuthorSigner;
  /**
   * Serve `PUT /v1/dryrun` (default true). The operator turns it off unless asked: the route
   * evaluates rules sent by whoever can reach the webhook port.
   */
  readonly dryRun?: boolean;
  /**
   * Where `PUT /v1/dryrun` looks up the Namespace and Node manifests (syntheticRefs) a body does
   * not give. Unset: nowhere, a dry run sees only the refs its body supplies. `kubemod-ts serve`
   * sets it to its `--refs` files; the operator never does: its `refs` are the cluster's
   * Namespaces and Nodes, which whoever reaches the webhook port may have no right to read (a
   * rule in the same body would copy them into its patch).
   */
  readonly dryRunRefs?: SyntheticRefLookups;
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
  /** Reviews a ModRule's literal lookups against the requesting user at admission. */
  readonly lookupAdmission?: LookupAdmissionCheck;
  /** With `playground`: the rules offered to the page at `GET /server-rules.json` (`serve --rules`). */
  readonly serverRules?: () => Promise<ServerRules>;
}
