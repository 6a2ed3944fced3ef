import { DEFAULT_REPORT_BOUNDS, type ReportBounds } from '../reports/report-bounds.js';
import { integerFlag } from './flag-values.js';

/** The operator's flags for the bounds of policy reports, as node:util parseArgs options. */
export const REPORT_BOUND_FLAG_OPTIONS = {
  'report-max-findings': { type: 'string' },
  'report-max-passes': { type: 'string' },
  'report-max-results-per-namespace': { type: 'string' },
  'report-max-results-per-rule': { type: 'string' },
} as const;

/** One help entry: the flag, then its text from column `width + 2` (on a line of its own if long). */
function entry(width: number, flag: string, text: readonly string[]): string {
  const pad = ' '.repeat(width + 2);
  const [first = '', ...rest] = text;
  const head =
    flag.length < width ? `  ${flag.padEnd(width)}${first}\n` : `  ${flag}\n${pad}${first}\n`;
  return head + rest.map((t) => `${pad}${t}\n`).join('');
}

/** Their help lines (flag column `width` wide). */
export function reportBoundFlagsUsage(width: number): string {
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
      `(default ${String(d.maxPerNamespace)}); a namespace past it gets a partial report`,
    ]),
    entry(width, '--report-max-results-per-rule <n>', [
      `results one rule adds to one namespace's policy reports (default ${String(d.maxPerRule)})`,
    ]),
  ].join('');
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
