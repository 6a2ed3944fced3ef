import { safeJson } from '../../engine/machine-text.js';
import type { CaseStatus, FileResult } from './run-test-file.js';
import type { TestSummary } from './test-summary.js';

/** Version of the JSON report's schema (docs/testing-rules.md); raised on incompatible changes. */
export const JSON_REPORT_VERSION = 1;

/** `kubemod-ts test --output json`: one object, see docs/testing-rules.md. */
export interface JsonReport {
  readonly version: typeof JSON_REPORT_VERSION;
  readonly summary: TestSummary;
  readonly files: readonly {
    readonly file: string;
    readonly valid: boolean;
    readonly errors: readonly string[];
    readonly durationMs: number;
    readonly cases: readonly {
      readonly name: string;
      /** The case's line in the file (absent when unknown). */
      readonly line?: number;
      readonly status: CaseStatus;
      readonly durationMs: number;
      readonly problems: readonly { field: string; message: string; diff?: string }[];
    }[];
  }[];
}

export function jsonReport(results: readonly FileResult[], summary: TestSummary): string {
  const report: JsonReport = {
    version: JSON_REPORT_VERSION,
    summary,
    files: results.map((file) => ({
      file: file.file,
      valid: file.errors.length === 0,
      errors: file.errors,
      durationMs: file.durationMs,
      cases: file.cases.map((c) => ({
        name: c.name,
        ...(c.line === undefined ? {} : { line: c.line }),
        status: c.status,
        durationMs: c.durationMs,
        problems: c.problems.map((p) => ({
          field: p.field,
          message: p.message,
          ...(p.diff === undefined ? {} : { diff: p.diff }),
        })),
      })),
    })),
  };
  return `${safeJson(report)}\n`;
}
