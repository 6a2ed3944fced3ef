/**
 * The explain document, version 1: why each rule did or did not apply to one admission request.
 * Returned by `kubemod-ts dryrun --explain -o json` and `PUT /v1/dryrun?explain=true` (member
 * `explain`), printed as a tree by `kubemod-ts dryrun --explain`. Documented in docs/explain.md.
 *
 * Every object with a `kind` is a node of one tree, and every node has the same four members, so
 * a generic renderer can show any document without knowing its kinds:
 *   - `kind`: what the node is (fixed set, see ExplainNode);
 *   - `status`: its outcome (fixed set, ExplainStatus; a renderer maps it to a colour);
 *   - `label`: a one-line plain-text summary (no colour codes, no newlines);
 *   - `children`: its child nodes, in order (always present, possibly empty).
 * The other members are the node's data for renderers that know its kind.
 *
 * Stability: within explainVersion 1 members are only ever added, never renamed, removed or
 * given another meaning; a renderer must ignore members and kinds it does not know.
 */

import type { LookupNode } from './lookup-node.js';

export type { LookupNode } from './lookup-node.js';

export const EXPLAIN_VERSION = 1;

/**
 * Outcome of a node. Suggested tones: applied, matched → success; rejected, failed → error;
 * not-matched, not-applied → warning; skipped, not-evaluated → muted; info → neutral.
 */
export type ExplainStatus =
  | 'applied'
  | 'rejected'
  | 'matched'
  | 'not-matched'
  | 'failed'
  | 'not-applied'
  | 'skipped'
  | 'not-evaluated'
  | 'info';

export const EXPLAIN_STATUSES: readonly ExplainStatus[] = [
  'applied',
  'rejected',
  'matched',
  'not-matched',
  'failed',
  'not-applied',
  'skipped',
  'not-evaluated',
  'info',
];

/** The members every node has. */
export interface ExplainNodeBase<K extends string, S extends ExplainStatus = ExplainStatus> {
  readonly kind: K;
  readonly status: S;
  readonly label: string;
  readonly children: readonly ExplainNode[];
}

export type ExplainNode =
  | ExplainDocument
  | RuleNode
  | MatchItemNode
  | OperationNode
  | PatchNode
  | RejectionNode
  | FailureNode
  | LookupNode
  | NoteNode;

/**
 * The bounds the trace was recorded under. Printed values longer than `valueChars` (and rule
 * texts longer than `textChars`) are cut and end with `…`; lists, children and rules past their
 * limits are counted in a `note` node (or, for rules, in `summary` and `omittedRules`).
 */
export interface ExplainLimits {
  /** Longest printed value (Go %v or JSON text), in characters. */
  readonly valueChars: number;
  /** Longest rule text shown (select, template, regex, message), in characters. */
  readonly textChars: number;
  /** Values shown per select result. */
  readonly values: number;
  /** Child nodes recorded per node (match items, operations, rendered patches). */
  readonly children: number;
  /** Rule nodes recorded. */
  readonly rules: number;
  /** Approximate size of the recorded details, in characters; past it, details are dropped. */
  readonly bytes: number;
}

/**
 * The root. `status`: rejected when the request is refused (an Enforce Reject rule matched, or a
 * rule with failure policy Fail failed), else applied when a Patch rule applied, else info.
 */
export interface ExplainDocument extends ExplainNodeBase<
  'explanation',
  'rejected' | 'applied' | 'info'
> {
  readonly explainVersion: typeof EXPLAIN_VERSION;
  readonly request: {
    readonly operation: string;
    /** The request's namespace; null for cluster-scoped objects. */
    readonly namespace: string | null;
    /**
     * Offline paths (dryrun, test, the dry-run API, the playground): how the namespace was
     * decided, e.g. that a Pod without metadata.namespace was evaluated in `default`.
     */
    readonly namespaceReason?: string;
    readonly kind: string | null;
    readonly name: string | null;
  };
  /** Counts over all rules, complete even when the trace was truncated. */
  readonly summary: {
    /** Rules loaded (candidates + skipped). */
    readonly rules: number;
    /** Rules the store offered for this request (namespace, kind and operation fit). */
    readonly candidates: number;
    /** Rules skipped by namespace, operation or kind before matching. */
    readonly skipped: number;
    /** Candidate rules whose whole match section matched. */
    readonly matched: number;
    /** Candidate rules whose match section did not match. */
    readonly notMatched: number;
    /** Patch rules whose operations were applied. */
    readonly applied: number;
    /**
     * What refuses the request: Reject rules in Enforce mode that matched, and rules with
     * failure policy Fail that failed.
     */
    readonly rejected: number;
    /** Reject rules in Warn mode that matched (the request is admitted with their warnings). */
    readonly warned: number;
    /** Reject rules in Audit mode that matched (admitted silently). */
    readonly audited: number;
    /** Rules that failed and were skipped (the others still applied). */
    readonly failed: number;
    /** Operations in the final JSON patch. */
    readonly patchOperations: number;
  };
  readonly limits: ExplainLimits;
  /**
   * True when a limit cut a value or text (it ends with `…`) or left something out (a note node
   * says what): the document is then incomplete.
   */
  readonly truncated: boolean;
  /** Rules not given a node because of limits.rules. */
  readonly omittedRules: number;
  /**
   * RuleNodes: candidates in the order the engine visited them (Patch rules tier by tier, then
   * Reject rules), then the skipped rules; a trailing note when rules were omitted.
   */
  readonly children: readonly (RuleNode | NoteNode)[];
}

/**
 * One ModRule. status: applied (Patch, its operations were applied), rejected (Reject, matched),
 * not-matched, failed (see its failure child), skipped (not a candidate, see `skipped`), or
 * not-evaluated (a candidate the engine never reached).
 */
export interface RuleNode extends ExplainNodeBase<
  'rule',
  'applied' | 'rejected' | 'not-matched' | 'failed' | 'skipped' | 'not-evaluated'
> {
  /** `<namespace>/<name>` */
  readonly rule: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: 'Patch' | 'Reject';
  /** spec.executionTier: Patch rules run tier by tier, lowest first. */
  readonly tier: number;
  /** 1-based position in the order the engine visited the candidates; null when skipped. */
  readonly order: number | null;
  /**
   * Applied Patch rules: 1-based position in the order rules were applied. Every rule of a tier
   * is matched against the tier's input; the matching ones are then rendered and applied one
   * after another, each on the object as the steps before it left it (its own tier's included).
   */
  readonly step: number | null;
  /** Whether the whole match section matched; null when it was not evaluated. */
  readonly matched: boolean | null;
  /** Why a rule was not a candidate (status skipped); null otherwise. */
  readonly skipped: {
    readonly reason: 'namespace' | 'kind' | 'operation' | 'index';
    readonly message: string;
  } | null;
  /** MatchItemNodes, then OperationNodes (Patch) or a RejectionNode (Reject), then a FailureNode. */
  readonly children: readonly (
    MatchItemNode | OperationNode | RejectionNode | LookupNode | FailureNode | NoteNode
  )[];
}

/**
 * How a match item reached its outcome (before negate):
 *   boolean            the select yielded a boolean, which decides;
 *   no-values          the select yielded no values (never matches);
 *   exists             no matchValue/matchValues/matchRegex: values exist (Any) or none is undefined (All);
 *   undefined-element  matchFor All and an element of a multi-valued select was undefined;
 *   value-accepted     matchFor Any: values[decidingValue] was accepted;
 *   none-accepted      matchFor Any: no value was accepted;
 *   all-accepted       matchFor All: every value was accepted;
 *   value-refused      matchFor All: values[decidingValue] was refused.
 * A value is accepted when it passes every one of matchValue, matchValues and matchRegex that is set.
 */
export type MatchDecision =
  | 'boolean'
  | 'no-values'
  | 'exists'
  | 'undefined-element'
  | 'value-accepted'
  | 'none-accepted'
  | 'all-accepted'
  | 'value-refused';

/**
 * One criteria item of spec.match. status: matched, not-matched, failed (its select failed: see
 * the rule's failure), or not-evaluated (an earlier item did not match or failed; the engine
 * stops at the first).
 */
export interface MatchItemNode extends ExplainNodeBase<
  'match',
  'matched' | 'not-matched' | 'failed' | 'not-evaluated'
> {
  /** `spec.match[i]` */
  readonly field: string;
  readonly select: string;
  readonly matchFor: 'Any' | 'All';
  readonly matchValue: string | null;
  readonly matchValues: readonly string[] | null;
  readonly matchRegex: string | null;
  readonly negate: boolean;
  /** What the select produced; null when not evaluated. Values are printed as Go's %v prints them. */
  readonly result:
    | { readonly type: 'boolean'; readonly value: boolean }
    | {
        readonly type: 'values';
        /** The first limits.values values. */
        readonly values: readonly string[];
        /** How many values there were in all. */
        readonly count: number;
        /** Elements of a multi-valued select that were undefined (left out of values). */
        readonly undefinedCount: number;
      }
    | null;
  readonly decision: MatchDecision | null;
  /** Index (into the select's values) of the value that decided, when one did. */
  readonly decidingValue: number | null;
  /** The outcome before negate; null when not evaluated. */
  readonly outcome: boolean | null;
  /** The outcome after negate; null when not evaluated. */
  readonly matched: boolean | null;
  readonly children: readonly never[];
}

/**
 * One spec.patch[i] operation of a Patch rule that matched. status: applied, not-applied (the
 * rule failed elsewhere and was rolled back), failed (this operation failed), not-evaluated (the
 * rule failed before reaching it).
 */
export interface OperationNode extends ExplainNodeBase<
  'operation',
  'applied' | 'not-applied' | 'failed' | 'not-evaluated'
> {
  /** `spec.patch[i]` */
  readonly field: string;
  readonly op: 'add' | 'replace' | 'remove';
  /** The operation's select, when it has one. */
  readonly select: string | null;
  /** The path as written (with placeholders such as `#0`). */
  readonly path: string;
  /** The value template as written; null for remove or no value. */
  readonly value: string | null;
  /** Items the select produced (one rendered patch each); 1 without a select; null when not evaluated. */
  readonly selectCount: number | null;
  /** PatchNodes, one per select item; a note when some were not recorded. */
  readonly children: readonly (PatchNode | NoteNode)[];
}

/** One JSON patch operation as rendered. status: applied, not-applied, or failed. */
export interface PatchNode extends ExplainNodeBase<'patch', 'applied' | 'not-applied' | 'failed'> {
  readonly op: 'add' | 'replace' | 'remove';
  /** The path with placeholders filled. */
  readonly path: string;
  /** The item the select produced, Go %v; null without a select. */
  readonly selected: string | null;
  /** The keys the select's wildcards/filters captured (fill `#0`, `#1`, …). */
  readonly keyParts: readonly (string | number)[];
  /** The value template's output text, before it is read as YAML; null for remove. */
  readonly rendered: string | null;
  /** The value as JSON text; null for remove. */
  readonly value: string | null;
  readonly children: readonly never[];
}

/** The rejection of a Reject rule that matched. */
export interface RejectionNode extends ExplainNodeBase<'rejection', 'rejected'> {
  /** The rendered rejectMessage; null when the rule has none or it failed to render. */
  readonly message: string | null;
  /** The rejection as the API server reports it: `<ns>/<name>: "<message>"` or `<ns>/<name>`. */
  readonly text: string;
  /**
   * The rule's `api.kubemod.io/enforcement`: Enforce refuses the request, Warn admits it with
   * `text` as a warning, Audit admits it silently.
   */
  readonly enforcement: 'Enforce' | 'Warn' | 'Audit';
  readonly children: readonly never[];
}

/** Why a rule failed (it was skipped; the other rules still applied). */
export interface FailureNode extends ExplainNodeBase<'failure', 'failed'> {
  /** The ModRule field that failed, e.g. `spec.patch[1].value`; `spec` when not known. */
  readonly field: string;
  /** Catalog code, e.g. KM3002 (template failed), KM5002 (work limit). */
  readonly code: string;
  readonly message: string;
  /** The rule's `api.kubemod.io/failure-policy`: with Fail the request is refused, not the rule skipped. */
  readonly failurePolicy: 'Ignore' | 'Fail';
  readonly children: readonly never[];
}

/** Something left out by a limit, or other information. */
export interface NoteNode extends ExplainNodeBase<'note', 'info'> {
  readonly children: readonly never[];
}
