import type { AdmissionOperation } from '../api/modrule-types.js';
import type { JsonObject, JsonPatchOperation, JsonValue } from './json.js';
import { applyOperation, createJsonPatch, jsonPointerSegments } from './patch/index.js';
import type { TemplateLimits } from './template/index.js';
import { type CompiledRule } from './rule.js';
import type { CandidateQuery, RuleStore } from './store.js';
import { renderRuleOperations, renderRejection, type RuleFailure } from './rule-render.js';
import { KubemodError } from '../errors/catalog.js';
import { LastApplied, LAST_APPLIED_POINTER_KEY } from './last-applied.js';
import { CopyOnWrite } from './copy-on-write.js';
import { failureOf } from './rule-render.js';
import { type WorkLimits } from './work-limits.js';
import { withMeter } from './active-meter.js';
import { WorkMeter } from './work-meter.js';
import type { EvaluationTracer } from './explain/tracer.js';
import { failClosedRefusals, recordRejection, type RejectOutcomes } from './enforcement.js';
import type { ClusterView, PendingAsk } from './cluster/cluster-view.js';
import { LookupSession } from './cluster/lookup-session.js';
import { withLookups } from './cluster/active-lookups.js';

export type { RuleFailure } from './rule-render.js';

export interface SyntheticRefs {
  readonly namespace?: JsonObject | undefined;
  readonly node?: JsonObject | undefined;
}

/**
 * Where the manifests of `syntheticRefs` come from: informers in the operator, files or nothing
 * standalone. In memory: evaluation never waits for them.
 */
export interface SyntheticRefLookups {
  namespace(name: string): JsonObject | undefined;
  node(name: string): JsonObject | undefined;
}

export interface EvaluationRequest {
  readonly operation: AdmissionOperation;
  /** The object's namespace; undefined for cluster-scoped objects (Namespace objects included). */
  readonly namespace: string | undefined;
  /** The object as received (for DELETE, the old object). Never modified. */
  readonly object: JsonObject;
  readonly syntheticRefs?: SyntheticRefs | undefined;
  readonly limits?: Partial<TemplateLimits> | undefined;
  /** Work budget of the request (see WorkMeter); defaults to DEFAULT_WORK_LIMITS. */
  readonly work?: Partial<WorkLimits> | undefined;
  /** Milliseconds for the work meter's time backstop; defaults to performance.now. */
  readonly clock?: (() => number) | undefined;
  /** Told what evaluation does, rule by rule (explain); evaluation does not depend on it. */
  readonly trace?: EvaluationTracer | undefined;
  /**
   * What `lookup`, the owner helpers and `external` read (docs/lookups.md). Absent: every lookup
   * is `unavailable` (no cluster state was given) and the rule using it fails.
   */
  readonly cluster?: ClusterView | undefined;
}

export interface AppliedRule {
  readonly rule: string;
  readonly namespace: string;
  readonly name: string;
  /** The operations the rule applied, as rendered (paths with placeholders filled in). */
  readonly operations: readonly JsonPatchOperation[];
}

export interface EvaluationResult {
  /** RFC 6902 patch from the object as received to `patched`; never touches syntheticRefs or managedFields. */
  readonly patch: JsonPatchOperation[];
  readonly patched: JsonObject;
  /**
   * KubeMod's format: `<ns>/<name>: "<message>"`, or `<ns>/<name>` without a message. The
   * matching Reject rules whose enforcement is Enforce, then the rules with failure policy Fail
   * that could not be evaluated (see failClosedRefusals): non-empty means the request is refused.
   */
  readonly rejections: string[];
  /** Matching Reject rules in Warn mode, same format: the request is admitted with these as warnings. */
  readonly warnings: string[];
  /** Matching Reject rules in Audit mode, same format: admitted silently, counted and reported. */
  readonly audited: string[];
  readonly applied: AppliedRule[];
  readonly failures: RuleFailure[];
  /**
   * Lookups that answered `pending` (an access review or provider call is needed first),
   * deduplicated and sorted; their rules failed with LOOKUP_PENDING and are not final: resolve
   * these and evaluate again (see cluster/resolve-loop.ts). Empty for rules without lookups.
   */
  readonly pending: PendingAsk[];
}

/**
 * Computes what KubeMod computes for one admission request: Patch rules tier by tier (each tier
 * matched against the result of the tiers before it, its matching rules applied one after another,
 * each on the result of the ones before it), then Reject rules against the fully patched object,
 * and one patch from the object as received. A rule that fails is recorded in `failures` and
 * skipped; the others still apply. Pure: no I/O, the store and request are not modified.
 */
export function evaluate(store: RuleStore, request: EvaluationRequest): EvaluationResult {
  const meter = new WorkMeter(request.work, request.clock);
  return withMeter(meter, () => {
    // Never asked to pause, the steps run to the end in one call.
    const step = evaluationSteps(store, request, meter, neverPause).next();
    if (step.done !== true) throw new Error('evaluation paused without being asked to');
    return step.value;
  });
}

function neverPause(): boolean {
  return false;
}

/**
 * The evaluation as steps: after each rule the generator asks `pause` and, when it says so, pauses
 * (yields), so that a caller can spread one request's evaluation over several turns of its event
 * loop (see evaluateSliced). Each `next()` must run with `meter` active (withMeter). What a step
 * does does not depend on when it runs: the rules are taken from the store once, at the start, and
 * the compiled rules never change. An evaluation that is never asked to pause allocates nothing
 * for being steppable.
 *
 * Each rule runs under its own allowance from its namespace's pool (WorkMeter.beginRule): a rule
 * that goes over fails with WORK_LIMIT and is skipped like any failing rule; the others still
 * apply. Work outside rules (replays, the final diff) is charged to the request.
 */
export function* evaluationSteps(
  store: RuleStore,
  request: EvaluationRequest,
  meter: WorkMeter,
  pause: () => boolean,
): Generator<void, EvaluationResult, void> {
  const original = request.object;
  const candidates = store.candidates(candidateQueryOf(request));
  // Most requests of a cluster concern no rule: nothing to copy, match or diff.
  if (candidates.length === 0) return unchangedResult(original);
  const state = new WorkingObject(original, request.syntheticRefs);
  const trace = request.trace;
  const context = { namespace: request.namespace ?? '', limits: request.limits, trace };
  const failures: RuleFailure[] = [];
  const applied: AppliedRule[] = [];
  const lookups = new LookupSession(
    request.cluster,
    store.clusterNamespace,
    context.namespace,
    trace?.lookup?.bind(trace),
    request.limits,
  );
  // Runs a rule's part (match, render) with the rule as the one whose lookups these are.
  const as = <T>(rule: CompiledRule, work: () => T): T =>
    withLookups(lookups, () => lookups.as(rule, work));

  for (const tier of store.patchTiers(candidates)) {
    // Every rule of the tier is matched against the tier's input, the object as the lower tiers
    // left it (as in KubeMod): what the tier's own rules patch does not change which of them match.
    const matching: CompiledRule[] = [];
    for (const rule of tier) {
      trace?.enterRule(rule);
      try {
        meter.beginRule(rule.namespace, rule.key);
        try {
          if (as(rule, () => rule.match.matches(state.view, trace))) matching.push(rule);
        } finally {
          meter.endRule();
        }
      } catch (err) {
        failures.push(failureOf(rule, err));
      }
      if (pause()) yield;
    }
    // The matching rules then apply one after another, in execution order (see compareRules):
    // each computes its patch (selects, placeholders, `.Target`, `.SelectedItem`, templates) on
    // the object as the rules before it in the tier left it. A rule that fails is skipped; if it
    // failed while applying, the object is rebuilt from the rules that did apply.
    for (const rule of matching) {
      trace?.enterRule(rule);
      let applying = false;
      try {
        meter.beginRule(rule.namespace, rule.key);
        try {
          const ops = as(rule, () => renderRuleOperations(rule, state.view, context));
          applying = true;
          state.apply(ops.operations, ops.fields, ops.segments);
          applied.push({
            rule: rule.key,
            namespace: rule.namespace,
            name: rule.name,
            operations: ops.operations,
          });
          trace?.applied();
        } finally {
          meter.endRule();
        }
      } catch (err) {
        failures.push(failureOf(rule, err));
        if (applying) state.replay(applied.flatMap((a) => a.operations));
      }
      if (pause()) yield;
    }
  }

  const outcomes: RejectOutcomes = { rejections: [], warnings: [], audited: [] };
  for (const rule of candidates) {
    if (rule.type !== 'Reject') continue;
    trace?.enterRule(rule);
    let outcome: ReturnType<typeof renderRejection> | undefined;
    try {
      meter.beginRule(rule.namespace, rule.key);
      try {
        if (as(rule, () => rule.match.matches(state.view, trace))) {
          outcome = as(rule, () => renderRejection(rule, state.view, context));
        }
      } finally {
        meter.endRule();
      }
    } catch (err) {
      failures.push(failureOf(rule, err));
    }
    if (outcome !== undefined) {
      recordRejection(rule, outcome.text, outcomes);
      if (outcome.failure !== undefined) failures.push(outcome.failure);
    }
    if (pause()) yield;
  }

  const patched = state.result(() => applied.flatMap((a) => a.operations));
  const patch = applied.length === 0 ? [] : createJsonPatch(original, patched);
  const rejections = outcomes.rejections;
  // A Patch rule has nothing to do on a DELETE (there is no object to patch): its failure there
  // refuses nothing, whatever its failure policy.
  const refusing =
    request.operation === 'DELETE'
      ? failures.filter((f) => !candidates.some((r) => r.key === f.rule && r.type === 'Patch'))
      : failures;
  rejections.push(...failClosedRefusals(refusing, rejections));
  const { warnings, audited } = outcomes;
  const pending: PendingAsk[] = lookups.pending();
  return { patch, patched, rejections, warnings, audited, applied, failures, pending };
}

/** The result of an evaluation that no rule concerns: the object as received, nothing else. */
export function unchangedResult(object: JsonObject): EvaluationResult {
  return {
    patch: [],
    patched: object,
    rejections: [],
    warnings: [],
    audited: [],
    applied: [],
    failures: [],
    pending: [],
  };
}

/** What the store is asked for: a Namespace object is looked up as cluster-scoped. */
export function candidateQueryOf(request: EvaluationRequest): CandidateQuery {
  const kind = typeof request.object.kind === 'string' ? request.object.kind : undefined;
  return {
    namespace: kind === 'Namespace' ? undefined : request.namespace,
    kind,
    operation: request.operation,
  };
}

/**
 * The object rules see: the request object with `syntheticRefs` attached, as a shallow copy whose
 * containers are copied on write along the paths that rules patch. The object as received and the
 * syntheticRefs manifests (shared with the informer caches) are never modified.
 */
class WorkingObject {
  view: JsonObject;
  private cow: CopyOnWrite;
  private changed = false;
  private readonly lastApplied: LastApplied | undefined;
  /**
   * Why result() left the last-applied-configuration annotation as it was (DEPTH_LIMIT: it nests
   * too deep; WORK_LIMIT: the request's budget ran out), if it did.
   */
  lastAppliedFailure: KubemodError | undefined;

  constructor(
    private readonly original: JsonObject,
    private readonly refs: SyntheticRefs | undefined,
  ) {
    this.view = this.fresh();
    this.cow = new CopyOnWrite(this.view);
    this.lastApplied = LastApplied.read(original);
  }

  /**
   * Applies operations; an error names the `spec.patch[i]` field the failing operation came from.
   * `split[i]`, when given, is operation i's path already split (RenderedOperations.segments): it
   * is charged as parsing the path would be.
   */
  apply(
    operations: readonly JsonPatchOperation[],
    fields: readonly string[] = [],
    split: readonly (readonly string[] | undefined)[] = [],
  ): void {
    let doc: JsonValue = this.view;
    // An index loop: entries() would allocate a pair and an iterator result per operation.
    for (let i = 0; i < operations.length; i++) {
      const op = operations[i] as JsonPatchOperation;
      try {
        const segments = jsonPointerSegments(op.path, split[i]);
        this.cow.prepare(segments);
        doc = applyOperation(doc, op, segments);
      } catch (err) {
        const field = fields[i];
        throw err instanceof KubemodError && field !== undefined ? err.atField(field) : err;
      }
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
        throw new KubemodError(
          'PATCH_APPLY',
          'a patch replaced the whole object with a non-object',
          fields[i],
        );
      }
      if (doc !== this.view) {
        this.view = doc;
        this.cow = new CopyOnWrite(doc);
      }
    }
    this.changed ||= operations.length > 0;
  }

  /**
   * Rebuilds the working object from the original and the operations that did succeed. Not
   * metered: it runs outside any rule, and re-applies operations whose cost their rules already
   * paid; a WORK_LIMIT here would lose the patch of every rule.
   */
  replay(operations: readonly JsonPatchOperation[]): void {
    this.view = this.fresh();
    this.cow = new CopyOnWrite(this.view);
    this.changed = false;
    const unlimited = new WorkMeter({
      requestUnits: Number.POSITIVE_INFINITY,
      requestMillis: Number.POSITIVE_INFINITY,
    });
    withMeter(unlimited, () => {
      this.apply(operations);
    });
  }

  /**
   * The patched object without syntheticRefs, with last-applied-configuration patched alike by the
   * operations `applied` lists (asked only when the object has that annotation).
   */
  result(applied: () => readonly JsonPatchOperation[]): JsonObject {
    if (!this.changed) return this.original;
    const out = this.view;
    if (Object.prototype.hasOwnProperty.call(this.original, 'syntheticRefs')) {
      out.syntheticRefs = this.original.syntheticRefs ?? null;
    } else if (Object.prototype.hasOwnProperty.call(out, 'syntheticRefs')) {
      // Only when there is one: `delete` goes through V8's runtime even for a missing member.
      delete out.syntheticRefs;
    }
    if (this.lastApplied !== undefined) {
      new CopyOnWrite(out).prepare(`/metadata/annotations/${LAST_APPLIED_POINTER_KEY}`);
      try {
        this.lastApplied.writeTo(out, applied());
      } catch (err) {
        // The annotation is left as received; the rules' patch is still answered.
        if (!(err instanceof KubemodError)) throw err;
        this.lastAppliedFailure = err;
      }
    }
    return out;
  }

  private fresh(): JsonObject {
    const view: JsonObject = { ...this.original };
    if (this.refs !== undefined) {
      const refs: JsonObject = {};
      if (this.refs.namespace !== undefined) refs.namespace = this.refs.namespace;
      if (this.refs.node !== undefined) refs.node = this.refs.node;
      view.syntheticRefs = refs;
    }
    return view;
  }
}
