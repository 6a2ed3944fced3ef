import type { CaseProblem, CaseResult, FileResult } from './run-test-file.js';
import type { TestSummary } from './test-summary.js';
import { caseLocation } from './report-text.js';

/**
 * The JUnit XML report CI systems read (GitLab, Jenkins, GitHub Actions reporters, …): one
 * `<testsuite>` per test file, one `<testcase>` per case, named by the case and classed by the
 * file, with its `file` and `line` attributes. A failing case has a `<failure>` (its first problem as the message, every problem and
 * diff as the text); a case that could not be evaluated an `<error>`. An invalid test file is a
 * suite with one errored test case named `(load)` holding its error lines, so that a CI view
 * shows it instead of silently running fewer tests. Times are in seconds.
 */
export function junitReport(results: readonly FileResult[], summary: TestSummary): string {
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kubemod-ts test" tests="${String(summary.cases + summary.invalidFiles)}" failures="${String(summary.failed)}" errors="${String(summary.errors + summary.invalidFiles)}" time="${seconds(summary.durationMs)}">`,
  ];
  for (const file of results) out.push(...suite(file));
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function suite(file: FileResult): string[] {
  const name = attr(file.file);
  if (file.errors.length > 0) {
    return [
      `  <testsuite name="${name}" tests="1" failures="0" errors="1" skipped="0" time="0.000">`,
      `    <testcase name="(load)" classname="${name}" time="0.000">`,
      `      <error message="${attr(file.errors[0] ?? 'invalid test file')}" type="InvalidTestFile">${text(file.errors.join('\n'))}</error>`,
      '    </testcase>',
      '  </testsuite>',
    ];
  }
  const failures = file.cases.filter((c) => c.status === 'fail').length;
  const errors = file.cases.filter((c) => c.status === 'error').length;
  return [
    `  <testsuite name="${name}" tests="${String(file.cases.length)}" failures="${String(failures)}" errors="${String(errors)}" skipped="0" time="${seconds(file.durationMs)}">`,
    ...file.cases.flatMap((c) => testcase(c, name, file.file)),
    '  </testsuite>',
  ];
}

function testcase(result: CaseResult, classname: string, file: string): string[] {
  // file and line: where the case is, as JUnit reporters (GitHub's among them) read them.
  const where = `file="${attr(file)}"${result.line === undefined ? '' : ` line="${String(result.line)}"`}`;
  const open = `    <testcase name="${attr(result.name)}" classname="${classname}" ${where} time="${seconds(result.durationMs)}"`;
  if (result.status === 'pass') return [`${open}/>`];
  const element = result.status === 'fail' ? 'failure' : 'error';
  const first = result.problems[0];
  const message = first === undefined ? result.status : `${first.field}: ${first.message}`;
  return [
    `${open}>`,
    `      <${element} message="${attr(message)}" type="${attr(first?.field ?? result.status)}">${text(`at ${caseLocation(file, result)}\n${problemsText(result.problems)}`)}</${element}>`,
    '    </testcase>',
  ];
}

function problemsText(problems: readonly CaseProblem[]): string {
  return problems
    .map((p) => `${p.field}: ${p.message}\n${p.diff ?? ''}`)
    .join('\n')
    .replace(/\n+$/, '');
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/**
 * Characters XML 1.0 cannot hold at all (controls other than tab and line breaks, lone
 * surrogates, U+FFFE/U+FFFF); they become U+FFFD.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Characters XML holds but a terminal showing the report would act on: DEL, C1 controls, line
 * separators and bidi controls. Written as character references, which read the same to a parser.
 */
const TERMINAL_CONTROLS = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Element text. */
function text(value: string): string {
  return value
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;')
    .replace(TERMINAL_CONTROLS, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`);
}

/** A double-quoted attribute value (line breaks and tabs kept as character references). */
function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}
