import type { ReportResult } from './report-result.js';

/**
 * The bounds of one audit's policy reports. The first two bound the operator's memory; the
 * other two share what is kept fairly, so that one tenant's rules and objects cannot push other
 * namespaces (or other rules) out of the reports (docs/policy-reports.md, "Size and bounds").
 */
export interface ReportBounds {
  /** Results with a non-pass outcome kept in all, at most. */
  readonly maxFindings: number;
  /** `pass` results kept in all, at most. */
  readonly maxPasses: number;
  /** Results one report scope keeps at most: a namespace's reports, or the cluster report's. */
  readonly maxPerNamespace: number;
  /** Results one rule adds to one report scope at most. */
  readonly maxPerRule: number;
}

export const DEFAULT_REPORT_BOUNDS: ReportBounds = {
  maxFindings: 50_000,
  maxPasses: 100_000,
  maxPerNamespace: 5_000,
  maxPerRule: 1_000,
};

/** The operator flag that sets each bound (named in a partial report's annotation and the logs). */
export const REPORT_BOUND_FLAGS: Readonly<Record<keyof ReportBounds, string>> = {
  maxFindings: '--report-max-findings',
  maxPasses: '--report-max-passes',
  maxPerNamespace: '--report-max-results-per-namespace',
  maxPerRule: '--report-max-results-per-rule',
};

/** Which bound left a result out: the rule's share, the namespace's share, or the audit's total. */
export type BoundReached = 'rule' | 'namespace' | 'total';

/** A report scope some of whose results were left out: its reports are partial. */
export interface PartialScope {
  readonly dropped: number;
  readonly reasons: readonly BoundReached[];
}

/** The key of a report scope: the namespace, or '' for the cluster report. */
export function scopeKey(namespace: string | undefined): string {
  return namespace ?? '';
}

/** One rule's results in one scope. */
interface Bucket {
  readonly findings: ReportResult[];
  readonly passes: ReportResult[];
}

interface Scope {
  readonly buckets: Map<string, Bucket>;
  size: number;
  dropped: number;
  readonly reasons: Set<BoundReached>;
  /** Buckets that had a pass when pushed (lazily cleaned): where a finding takes a pass's place. */
  readonly withPasses: Bucket[];
}

const bucketSize = (b: Bucket): number => b.findings.length + b.passes.length;

/**
 * The results one audit keeps, within ReportBounds. Each report scope (a namespace, or the
 * cluster report) keeps at most `maxPerNamespace` results and each rule at most `maxPerRule` of
 * them, so the first namespaces and rules the audit meets cannot take every place; across scopes
 * `maxFindings` and `maxPasses` bound memory. Where a bound is reached, a finding takes the place
 * of a pass of the same rule (or scope), and otherwise the new result is left out. Every result
 * left out marks its scope partial (`partial()`), which the reports then say.
 */
export class BoundedResults {
  private readonly bounds: ReportBounds;
  private readonly scopes = new Map<string, Scope>();
  private findings = 0;
  private passes = 0;
  private droppedTotal = 0;

  constructor(bounds: Partial<ReportBounds> = {}) {
    this.bounds = { ...DEFAULT_REPORT_BOUNDS, ...bounds };
  }

  /** Results left out in all. */
  get dropped(): number {
    return this.droppedTotal;
  }

  add(result: ReportResult): void {
    const scope = this.scope(scopeKey(result.reportNamespace));
    let bucket = scope.buckets.get(result.policy);
    if (bucket === undefined) {
      bucket = { findings: [], passes: [] };
      scope.buckets.set(result.policy, bucket);
    }
    const pass = result.result === 'pass';
    if (pass ? this.passes >= this.bounds.maxPasses : this.findings >= this.bounds.maxFindings) {
      this.leaveOut(scope, 'total');
      return;
    }
    if (bucketSize(bucket) >= this.bounds.maxPerRule) {
      if (pass || !this.evictPass(scope, bucket, 'rule')) {
        this.leaveOut(scope, 'rule');
        return;
      }
    } else if (scope.size >= this.bounds.maxPerNamespace) {
      const victim = pass ? undefined : this.bucketWithPass(scope);
      if (victim === undefined || !this.evictPass(scope, victim, 'namespace')) {
        this.leaveOut(scope, 'namespace');
        return;
      }
    }
    if (pass) {
      if (bucket.passes.length === 0) scope.withPasses.push(bucket);
      bucket.passes.push(result);
      this.passes++;
    } else {
      bucket.findings.push(result);
      this.findings++;
    }
    scope.size++;
  }

  /** Every result kept: the findings, then the passes. */
  results(): ReportResult[] {
    const buckets = [...this.scopes.values()].flatMap((scope) => [...scope.buckets.values()]);
    return [...buckets.flatMap((b) => b.findings), ...buckets.flatMap((b) => b.passes)];
  }

  /** The scopes (by scopeKey) that left results out, with how many and which bounds. */
  partial(): Map<string, PartialScope> {
    const out = new Map<string, PartialScope>();
    for (const [key, scope] of this.scopes)
      if (scope.dropped > 0)
        out.set(key, { dropped: scope.dropped, reasons: [...scope.reasons].sort() });
    return out;
  }

  private scope(key: string): Scope {
    let scope = this.scopes.get(key);
    if (scope === undefined) {
      scope = { buckets: new Map(), size: 0, dropped: 0, reasons: new Set(), withPasses: [] };
      this.scopes.set(key, scope);
    }
    return scope;
  }

  private leaveOut(scope: Scope, reason: BoundReached): void {
    scope.dropped++;
    scope.reasons.add(reason);
    this.droppedTotal++;
  }

  private bucketWithPass(scope: Scope): Bucket | undefined {
    for (;;) {
      const top = scope.withPasses.at(-1);
      if (top === undefined || top.passes.length > 0) return top;
      scope.withPasses.pop();
    }
  }

  /** Drops the last pass of `bucket` to make room for a finding; false when it has none. */
  private evictPass(scope: Scope, bucket: Bucket, reason: BoundReached): boolean {
    if (bucket.passes.pop() === undefined) return false;
    this.passes--;
    scope.size--;
    this.leaveOut(scope, reason);
    return true;
  }
}
