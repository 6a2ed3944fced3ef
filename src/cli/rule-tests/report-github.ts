import { createHash } from 'node:crypto';
import type { CaseResult, FileResult } from './run-test-file.js';
import { fileText } from './report-text.js';
import { summaryLine, type TestSummary } from './test-summary.js';

/** Longest annotation message; the text report above it holds everything. */
const MAX_MESSAGE_CHARS = 4000;

export interface GithubReportOptions {
  /** Leave passing cases out of the text part (`--fail-only`). */
  readonly failOnly: boolean;
}

/**
 * `kubemod-ts test --output github`, for a GitHub Actions step: the text report, then one
 * `::error file=…,line=…,title=…::message` workflow command per case that failed or could not be
 * evaluated (GitHub shows it on that line of the test file, in the run and in a pull request's
 * files), one per error of an invalid test file, then the summary line.
 *
 * Test files, case names, messages and diffs are the author's and the objects' text, so none of
 * it may act as a workflow command: the text report is printed between `::stop-commands::<token>`
 * and `::<token>::` (token: a hash of that very text, which the text cannot contain), and every
 * annotation value is escaped as the runner requires (`%`, CR, LF; in properties `:` and `,`
 * too), so a line break in a message cannot start a command of its own.
 */
export function githubReport(
  results: readonly FileResult[],
  summary: TestSummary,
  options: GithubReportOptions,
): string {
  const text = results
    .map((file) => (file.errors.length > 0 ? invalidText(file) : fileText(file, options)))
    .join('');
  const token = createHash('sha256').update(text).digest('hex');
  const out: string[] = [];
  if (text !== '') out.push(`::stop-commands::${token}\n`, text, `::${token}::\n`);
  for (const file of results) {
    for (const error of file.errors)
      out.push(command({ file: file.file, title: 'invalid test file' }, error));
    for (const result of file.cases) {
      if (result.status !== 'pass') out.push(caseCommand(file.file, result));
    }
  }
  out.push(`\n${summaryLine(summary)}\n`);
  return out.join('');
}

function invalidText(file: FileResult): string {
  return `${file.file}\n  INVALID  not run (its errors are on stderr)\n`;
}

function caseCommand(file: string, result: CaseResult): string {
  const what = result.status === 'fail' ? 'failed' : 'could not be evaluated';
  const message = result.problems
    .map((p) => `${p.field}: ${p.message}${p.diff === undefined ? '' : `\n${p.diff}`}`)
    .join('\n');
  return command(
    { file, line: result.line, title: `kubemod-ts test: case "${result.name}" ${what}` },
    message === '' ? what : message,
  );
}

interface Properties {
  readonly file: string;
  readonly line?: number | undefined;
  readonly title: string;
}

function command(properties: Properties, message: string): string {
  const props = [`file=${property(properties.file)}`];
  if (properties.line !== undefined) props.push(`line=${String(properties.line)}`);
  props.push(`title=${property(properties.title)}`);
  const cut =
    message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  return `::error ${props.join(',')}::${data(cut.replace(/\n+$/, ''))}\n`;
}

/** A workflow command's message, escaped as the runner unescapes it. */
export function data(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value. */
export function property(value: string): string {
  return data(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
