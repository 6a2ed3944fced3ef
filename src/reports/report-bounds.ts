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
