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

/**
 * The human report of one test file that ran: its name, then one line per case (`PASS`, `FAIL`
 * or `ERROR` and the case's name); under a case that did not pass, each problem and the diff of
 * what was expected against what the rules did. Plain text, no colour: the same on a terminal
 * and in a CI log. Names, messages and diff lines come from the test file and the objects, so
 * their controls are escaped (terminalText); a line break in a message cannot forge a case line.
 */
export function fileText(result: FileResult): string {
  const out = [terminalText(result.file)];
  for (const one of result.cases) out.push(...caseLines(one));
  return `${out.join('\n')}\n`;
}

function caseLines(result: CaseResult): string[] {
  const lines = [`  ${LABELS[result.status]}  ${terminalText(result.name)}`];
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
