import { DEFAULT_REPORT_BOUNDS, type ReportBounds } from '../reports/report-quota.js';
import { DEFAULT_MAX_RULE_SERIES, namespaceShare } from '../observability/rule-labels.js';
import { DEFAULT_METRICS_CACHE_MS } from '../controller/health-server.js';
import { integerFlag } from './flag-values.js';

/**
 * The operator's flags for the bounds of policy reports and metrics, as node:util parseArgs
 * options.
 */
export const BOUND_FLAG_OPTIONS = {
  'report-max-findings': { type: 'string' },
  'report-max-passes': { type: 'string' },
  'report-max-results-per-namespace': { type: 'string' },
  'report-max-results-per-rule': { type: 'string' },
  'metrics-max-rules': { type: 'string' },
  'metrics-cache-ms': { type: 'string' },
} as const;

/** What the metrics flags set. */
export interface MetricsBounds {
  /** Rules with per-rule series of their own (the rest count as rule="other"). */
  readonly metricsMaxRules: number;
  /** How long a rendered /metrics page is served again (0: never). */
  readonly metricsCacheMs: number;
}

/** One help entry: the flag, then its text from column `width + 2` (on a line of its own if long). */
function entry(width: number, flag: string, text: readonly string[]): string {
  const pad = ' '.repeat(width + 2);
  const [first = '', ...rest] = text;
  const head =
    flag.length < width ? `  ${flag.padEnd(width)}${first}\n` : `  ${flag}\n${pad}${first}\n`;
  return head + rest.map((t) => `${pad}${t}\n`).join('');
}

/** Their help lines (flag column `width` wide). */
export function boundFlagsUsage(width: number): string {
  const d = DEFAULT_REPORT_BOUNDS;
  return [
    entry(width, '--report-max-findings <n>', [
      `non-pass policy-report results one audit keeps (default ${String(d.maxFindings)})`,
    ]),
    entry(width, '--report-max-passes <n>', [
      `pass policy-report results one audit keeps (default ${String(d.maxPasses)})`,
    ]),
    entry(width, '--report-max-results-per-namespace <n>', [
      "results one namespace's policy reports (or the cluster report) keep",
      `(default ${String(d.maxPerNamespace)}); past it the report is marked partial`,
    ]),
    entry(width, '--report-max-results-per-rule <n>', [
      "results one rule adds to one namespace's policy reports",
      `(default ${String(d.maxPerRule)})`,
    ]),
    entry(width, '--metrics-max-rules <n>', [
      'rules with per-rule metric series of their own, a tenth of them per',
      `namespace (default ${String(DEFAULT_MAX_RULE_SERIES)}: ${String(namespaceShare(DEFAULT_MAX_RULE_SERIES))} per namespace); the others count as`,
      'rule="other"',
    ]),
    entry(width, '--metrics-cache-ms <ms>', [
      'a rendered /metrics page is served again for this long',
      `(default ${String(DEFAULT_METRICS_CACHE_MS)}; 0: never)`,
    ]),
  ].join('');
}

/** The metrics bounds from the parsed flags. */
export function metricsBoundFlags(values: {
  readonly 'metrics-max-rules'?: string | undefined;
  readonly 'metrics-cache-ms'?: string | undefined;
}): MetricsBounds {
  return {
    metricsMaxRules: integerFlag(
      values['metrics-max-rules'],
      '--metrics-max-rules',
      DEFAULT_MAX_RULE_SERIES,
      0,
      1_000_000,
    ),
    metricsCacheMs: integerFlag(
      values['metrics-cache-ms'],
      '--metrics-cache-ms',
      DEFAULT_METRICS_CACHE_MS,
      0,
      600_000,
    ),
  };
}

/** The report bounds from the parsed flags; DEFAULT_REPORT_BOUNDS for those not given. */
export function reportBoundFlags(values: {
  readonly 'report-max-findings'?: string | undefined;
  readonly 'report-max-passes'?: string | undefined;
  readonly 'report-max-results-per-namespace'?: string | undefined;
  readonly 'report-max-results-per-rule'?: string | undefined;
}): ReportBounds {
  const d = DEFAULT_REPORT_BOUNDS;
  const max = 10_000_000;
  return {
    maxFindings: integerFlag(
      values['report-max-findings'],
      '--report-max-findings',
      d.maxFindings,
      1,
      max,
    ),
    maxPasses: integerFlag(values['report-max-passes'], '--report-max-passes', d.maxPasses, 0, max),
    maxPerNamespace: integerFlag(
      values['report-max-results-per-namespace'],
      '--report-max-results-per-namespace',
      d.maxPerNamespace,
      1,
      max,
    ),
    maxPerRule: integerFlag(
      values['report-max-results-per-rule'],
      '--report-max-results-per-rule',
      d.maxPerRule,
      1,
      max,
    ),
  };
}
