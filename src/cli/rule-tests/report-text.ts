import { terminalText } from '../../engine/terminal-text.js';
import type { CaseResult, CaseStatus, FileResult } from './run-test-file.js';

const LABELS: Readonly<Record<CaseStatus, string>> = {
  pass: 'PASS ',
  fail: 'FAIL ',
  error: 'ERROR',
};
/** Indentation of a problem under its case line, and of a diff under its problem. */
const PROBLEM_INDENT = '         ';
const DIFF_INDENT = `${PROBLEM_INDENT}  `;

export interface TextReportOptions {
  /** Only the cases that did not pass (`--fail-only`); a file with none prints nothing. */
  readonly failOnly?: boolean | undefined;
}

/**
 * The human report of one test file that ran: its name, then one line per case (`PASS`, `FAIL`
 * or `ERROR` and the case's name); under a case that did not pass, where it is (`at
 * <file>:<line>`, which editors and terminals open), each problem and the diff of what was
 * expected against what the rules did. Plain text, no colour: the same on a terminal and in a CI
 * log. Names, messages and diff lines come from the test file and the objects, so their controls
 * are escaped (terminalText); a line break in a message cannot forge a case line.
 */
export function fileText(result: FileResult, options: TextReportOptions = {}): string {
  const shown =
    options.failOnly === true ? result.cases.filter((c) => c.status !== 'pass') : result.cases;
  if (options.failOnly === true && shown.length === 0) return '';
  const out = [terminalText(result.file)];
  for (const one of shown) out.push(...caseLines(result.file, one));
  return `${out.join('\n')}\n`;
}

/** `<file>:<line>` of a case (the file alone when its line is unknown). */
export function caseLocation(file: string, result: CaseResult): string {
  return result.line === undefined ? file : `${file}:${String(result.line)}`;
}

function caseLines(file: string, result: CaseResult): string[] {
  const lines = [`  ${LABELS[result.status]}  ${terminalText(result.name)}`];
  if (result.status !== 'pass') {
    lines.push(`${PROBLEM_INDENT}at ${terminalText(caseLocation(file, result))}`);
  }
  for (const problem of result.problems) {
    lines.push(`${PROBLEM_INDENT}${terminalText(`${problem.field}: ${problem.message}`)}`);
    if (problem.diff !== undefined) {
      for (const line of problem.diff.replace(/\n$/, '').split('\n')) {
        lines.push(`${DIFF_INDENT}${terminalText(line)}`);
      }
    }
  }
  return lines;
}
