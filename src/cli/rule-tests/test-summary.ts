import type { FileResult } from './run-test-file.js';

/** Counts over a whole run. */
export interface TestSummary {
  readonly files: number;
  readonly invalidFiles: number;
  readonly cases: number;
  readonly passed: number;
  readonly failed: number;
  /** Cases that could not be evaluated at all. */
  readonly errors: number;
  readonly durationMs: number;
}

export function summarize(results: readonly FileResult[]): TestSummary {
  let cases = 0;
  let passed = 0;
  let failed = 0;
  let errors = 0;
  let durationMs = 0;
  for (const file of results) {
    durationMs += file.durationMs;
    for (const result of file.cases) {
      cases++;
      if (result.status === 'pass') passed++;
      else if (result.status === 'fail') failed++;
      else errors++;
    }
  }
  const invalidFiles = results.filter((file) => file.errors.length > 0).length;
  return { files: results.length, invalidFiles, cases, passed, failed, errors, durationMs };
}

/**
 * The exit status of `kubemod-ts test`: 2 when a test file is invalid (its cases did not run, so
 * the run proves nothing about them), else 1 when a case failed or erred, else 0.
 */
export function exitCodeOf(summary: TestSummary): 0 | 1 | 2 {
  if (summary.invalidFiles > 0) return 2;
  return summary.failed + summary.errors > 0 ? 1 : 0;
}

/** `9 cases in 2 files: 8 passed, 1 failed; 1 invalid test file` */
export function summaryLine(summary: TestSummary): string {
  const counts = [`${String(summary.passed)} passed`];
  if (summary.failed > 0) counts.push(`${String(summary.failed)} failed`);
  if (summary.errors > 0) counts.push(`${String(summary.errors)} could not be evaluated`);
  const invalid =
    summary.invalidFiles === 0
      ? ''
      : `; ${plural(summary.invalidFiles, 'invalid test file')} (not run)`;
  return `${plural(summary.cases, 'case')} in ${plural(summary.files, 'file')}: ${counts.join(', ')}${invalid}`;
}

function plural(count: number, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}
