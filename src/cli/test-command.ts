import { parseArgs } from 'node:util';
import { describeError } from '../errors/catalog.js';
import type { WorkLimits } from '../engine/work-limits.js';
import { CliError, type CliIo } from './cli-io.js';
import { discoverTestFiles } from './rule-tests/discover-test-files.js';
import { loadTestFile } from './rule-tests/load-test-file.js';
import { fileText } from './rule-tests/report-text.js';
import { terminalLines, terminalText } from '../engine/terminal-text.js';
import { jsonReport } from './rule-tests/report-json.js';
import { junitReport } from './rule-tests/report-junit.js';
import { githubReport } from './rule-tests/report-github.js';
import { caseSelector } from './rule-tests/case-address.js';
import { runTestFile, type FileResult } from './rule-tests/run-test-file.js';
import { exitCodeOf, summarize, summaryLine } from './rule-tests/test-summary.js';
import { WORK_FLAG_OPTIONS, workFlagsUsage, workLimitsFlags } from './work-flags.js';

/**
 * The work-unit flags of `serve` and `operator`. Not their time flags: cases run without time
 * backstops, so that a result never depends on how busy the machine is.
 */
const UNIT_FLAG_OPTIONS = {
  'rule-work-units': WORK_FLAG_OPTIONS['rule-work-units'],
  'namespace-work-units': WORK_FLAG_OPTIONS['namespace-work-units'],
  'request-work-units': WORK_FLAG_OPTIONS['request-work-units'],
} as const;
const UNIT_FLAGS_USAGE = workFlagsUsage(28)
  .split('\n')
  .filter((line) => line.includes('-work-units'))
  .map((line) => `${line}\n`)
  .join('');

export const TEST_USAGE = `Usage: kubemod-ts test [<dir|file> …] [-t <case> …] [--fail-only]
                       [--output text|junit|json|github]

Runs ModRule test files: the files named, and in the directories (default: the current one),
searched recursively, every kubemod-test.yaml and *.kubemod-test.yaml (or .yml). Each case
evaluates the file's ModRules against a resource with the webhook's engine and compares the
result with what the case expects. The format is described in docs/testing-rules.md.

Options:
  -t, --case <pattern>        run only the cases whose name matches (repeatable; * and ? are
                              wildcards, the whole name must match); no match is a usage error
      --fail-only             text and github output: show only the cases that did not pass
  -o, --output <format>       text (default): one line per case, where a failing case is
                              (file:line), a diff under each failure and a summary; junit: JUnit
                              XML for CI systems (testcase file and line); json: one JSON object;
                              github: the text report and a ::error workflow command per failure,
                              which GitHub Actions shows at the case's file and line
${UNIT_FLAGS_USAGE}  -h, --help                  show this help

Exit status: 0 when every case passed, 1 when a case failed, 2 on a usage error or an invalid
test file (each error on stderr names the file, the case and the field).
`;

const OUTPUT_FORMATS = ['text', 'junit', 'json', 'github'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface TestOptions {
  readonly paths: readonly string[];
  readonly output: OutputFormat;
  /** `--case` patterns (caseSelector); empty: every case. */
  readonly cases: readonly string[];
  readonly failOnly: boolean;
  /** Work units per evaluation; the time backstops are the webhook's defaults (see runTestFile). */
  readonly work: Pick<WorkLimits, 'ruleUnits' | 'namespaceUnits' | 'requestUnits'>;
}

function parseOptions(argv: readonly string[]): TestOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        output: { type: 'string', short: 'o', default: 'text' },
        case: { type: 'string', short: 't', multiple: true },
        'fail-only': { type: 'boolean' },
        ...UNIT_FLAG_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new CliError(describeError(err), 2);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  const output = OUTPUT_FORMATS.find((format) => format === values.output);
  if (output === undefined) {
    throw new CliError(`--output: must be ${OUTPUT_FORMATS.join(', ')}, got ${values.output}`, 2);
  }
  const cases = values.case ?? [];
  if (cases.some((pattern) => pattern === '')) {
    throw new CliError('--case: a pattern cannot be empty', 2);
  }
  let work: TestOptions['work'];
  try {
    const { ruleUnits, namespaceUnits, requestUnits } = workLimitsFlags(values);
    work = { ruleUnits, namespaceUnits, requestUnits };
  } catch (err) {
    throw new CliError(describeError(err), 2);
  }
  return {
    paths: positionals.length === 0 ? ['.'] : positionals,
    output,
    cases,
    failOnly: values['fail-only'] === true,
    work,
  };
}

/** `kubemod-ts test`: see TEST_USAGE. Returns the exit code. `now` (ms) times the cases. */
export function runTest(
  argv: readonly string[],
  io: CliIo,
  now: () => number = () => performance.now(),
): number {
  let options: TestOptions | 'help';
  let files: string[];
  try {
    options = parseOptions(argv);
    if (options === 'help') {
      io.stdout(TEST_USAGE);
      return 0;
    }
    files = discoverTestFiles(options.paths);
  } catch (err) {
    io.stderr(`kubemod-ts test: ${terminalLines(describeError(err))}\n`);
    if (!(err instanceof CliError)) io.stderr(TEST_USAGE);
    return 2;
  }
  const results: FileResult[] = [];
  const select = caseSelector(options.cases);
  const text = options.output === 'text';
  for (const file of files) {
    const load = loadTestFile(file);
    if (!load.ok) {
      for (const line of load.errors) io.stderr(`${terminalLines(line)}\n`);
      results.push({ file, errors: load.errors, cases: [], durationMs: 0 });
      if (text) io.stdout(`${terminalText(file)}\n  INVALID  not run (its errors are on stderr)\n`);
      continue;
    }
    const result = runTestFile(load.test, { work: options.work, now, select });
    // A file none of whose cases was selected is left out of every report.
    if (select !== undefined && result.cases.length === 0) continue;
    results.push(result);
    if (text) io.stdout(fileText(result, { failOnly: options.failOnly }));
  }
  const summary = summarize(results);
  if (select !== undefined && summary.cases === 0 && summary.invalidFiles === 0) {
    io.stderr(
      `kubemod-ts test: no case matches --case ${options.cases.map((c) => JSON.stringify(c)).join(', ')} in ${String(files.length)} test file(s)\n`,
    );
    return 2;
  }
  switch (options.output) {
    case 'text':
      io.stdout(`\n${summaryLine(summary)}\n`);
      break;
    case 'junit':
      io.stdout(junitReport(results, summary));
      break;
    case 'json':
      io.stdout(jsonReport(results, summary));
      break;
    case 'github':
      io.stdout(githubReport(results, summary, { failOnly: options.failOnly }));
      break;
  }
  return exitCodeOf(summary);
}
