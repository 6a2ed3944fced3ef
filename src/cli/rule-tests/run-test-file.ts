import { evaluate, type EvaluationRequest, type EvaluationResult } from '../../engine/evaluate.js';
import { explainEvaluation, type ExplainDocument } from '../../engine/explain/index.js';
import type { WorkLimits } from '../../engine/work-limits.js';
import { describeError, isKubemodError } from '../../errors/catalog.js';
import { syntheticRefsFor } from '../../webhook/admission/synthetic-refs.js';
import { checkExpectations, type CaseProblem } from './check-expectations.js';
import type { RuleTestCase, RuleTestFile } from './test-file.js';

export type { CaseProblem } from './check-expectations.js';

/** pass: every expectation met; fail: some not; error: the case could not be evaluated. */
export type CaseStatus = 'pass' | 'fail' | 'error';

export interface CaseResult {
  readonly name: string;
  /** The case's line in its file, when known. */
  readonly line?: number | undefined;
  readonly status: CaseStatus;
  readonly problems: readonly CaseProblem[];
  readonly durationMs: number;
}

export interface FileResult {
  readonly file: string;
  /** Why the file is invalid (then it has no case results); empty for a file that loaded. */
  readonly errors: readonly string[];
  readonly cases: readonly CaseResult[];
  readonly durationMs: number;
}

export interface RunOptions {
  /**
   * Work budget of each evaluation, as the webhook's flags set them (default: the engine's, the
   * webhook's and dryrun's too). Units decide; the CPU-time backstops are set far above what the
   * units allow (docs/hostile-input.md), so a case passes or fails alike on a busy machine.
   */
  readonly work?: Partial<WorkLimits> | undefined;
  /** Milliseconds, for the durations reported (default performance.now). */
  readonly now?: (() => number) | undefined;
  /** Which cases to run, by name (`--case`); default all. The others are not run nor reported. */
  readonly select?: ((name: string) => boolean) | undefined;
}

/** Runs every case of a loaded test file, in order. */
export function runTestFile(test: RuleTestFile, options: RunOptions = {}): FileResult {
  const now = options.now ?? (() => performance.now());
  const work = { ...options.work };
  const start = now();
  const selected =
    options.select === undefined
      ? test.cases
      : test.cases.filter((c) => options.select?.(c.name) === true);
  const cases = selected.map((testCase) => runCase(test, testCase, { now, work }));
  return { file: test.file, errors: [], cases, durationMs: now() - start };
}

/**
 * Evaluates one case exactly as the webhook evaluates an admission request: the file's rules
 * (those without a namespace placed in the request's), the syntheticRefs the webhook would
 * inject, the same work budget; then compares the result with the expectations.
 */
function runCase(
  test: RuleTestFile,
  testCase: RuleTestCase,
  options: RunOptions & { readonly now: () => number },
): CaseResult {
  const start = options.now();
  const done = (status: CaseStatus, problems: CaseProblem[]): CaseResult => ({
    name: testCase.name,
    ...(testCase.line === undefined ? {} : { line: testCase.line }),
    status,
    problems,
    durationMs: options.now() - start,
  });
  const rules = test.rules.forNamespace(testCase.namespace ?? 'default');
  if (rules.errors.length > 0) {
    return done('error', [{ field: 'rules', message: rules.errors.join('; ') }]);
  }
  const refs = testCase.refs;
  const request: EvaluationRequest = {
    operation: testCase.operation,
    namespace: testCase.namespace,
    object: testCase.resource,
    syntheticRefs: syntheticRefsFor(testCase.resource, testCase.namespace, {
      namespace: () => refs.namespace,
      node: () => refs.node,
    }),
    work: options.work,
    cluster: testCase.cluster,
  };
  let result: EvaluationResult;
  try {
    result = evaluate(rules.store, request);
  } catch (err) {
    const code = isKubemodError(err) ? ` [${err.code}]` : '';
    return done('error', [
      {
        field: 'evaluation',
        message: `the request cannot be evaluated${code}: ${describeError(err)}`,
      },
    ]);
  }
  // The explanation, only to say why an expected rule did not apply (the same evaluation again).
  const explain = (): ExplainDocument =>
    explainEvaluation(rules.store, request, {}, testCase.namespaceReason).explanation;
  const problems = checkExpectations(testCase, result, options.work, explain);
  return done(problems.length === 0 ? 'pass' : 'fail', problems);
}
