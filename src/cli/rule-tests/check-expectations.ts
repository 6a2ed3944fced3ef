import type { EvaluationResult } from '../../engine/evaluate.js';
import type { ExplainDocument } from '../../engine/explain/index.js';
import type { JsonObject, JsonValue } from '../../engine/json.js';
import { jsonEqual } from '../../engine/patch/index.js';
import type { WorkLimits } from '../../engine/work-limits.js';
import { dryRunDiff } from '../../webhook/dryrun/dryrun-diff.js';
import { appliedReasons } from './applied-reasons.js';
import type { ExpectedFailure, RuleTestCase } from './test-file.js';

/** One way a case's result differs from what it expects. */
export interface CaseProblem {
  /** The expectation not met (`expect.patch`), or `rules` / `evaluation` for a case that errs. */
  readonly field: string;
  readonly message: string;
  /** A unified diff of the YAML of both sides (hunks only; the message names the sides). */
  readonly diff?: string | undefined;
}

const EXPECTED_ACTUAL = '(- expected, + actual)';

/**
 * Compares an evaluation with a case's expectations; no problems means the case passes.
 * `rejections` and `failures` not stated expect none: a rule that rejects the object or fails
 * where nobody expected it is a failing case.
 */
export function checkExpectations(
  testCase: RuleTestCase,
  result: EvaluationResult,
  work?: Partial<WorkLimits>,
  explain?: () => ExplainDocument,
): CaseProblem[] {
  const expect = testCase.expect;
  const problems: CaseProblem[] = [];
  const differs = (
    field: string,
    message: string,
    expected: JsonValue,
    actual: JsonValue,
    details: readonly string[] = [],
  ): void => {
    problems.push({
      field,
      message: [`${message} ${EXPECTED_ACTUAL}`, ...details].join('; '),
      diff: diffOf(expected, actual, work),
    });
  };
  if (expect.patched !== undefined && !jsonEqual(expect.patched, result.patched, false)) {
    differs(
      'expect.patched',
      'the patched object is not the one expected',
      expect.patched,
      result.patched,
    );
  }
  if (expect.patch !== undefined && !jsonEqual(expect.patch, result.patch, false)) {
    differs('expect.patch', 'the patch is not the one expected', expect.patch, result.patch);
  }
  if (expect.noChange && result.patch.length > 0) {
    const rules = result.applied.map((a) => a.rule).join(', ');
    problems.push({
      field: 'expect.noChange',
      message: `the object was changed by ${rules} (- received, + patched)`,
      diff: diffOf(testCase.resource, result.patched, work),
    });
  }
  const rejections = expect.rejections ?? [];
  if (!jsonEqual(rejections, result.rejections, false)) {
    differs(
      'expect.rejections',
      expect.rejections === undefined
        ? 'the object was rejected, and the case expects no rejection'
        : 'the rejections are not the ones expected',
      rejections,
      result.rejections,
    );
  }
  const outcomes = [
    ['warnings', expect.warnings, result.warnings, 'warned (enforcement Warn)'],
    ['audited', expect.audited, result.audited, 'audited (enforcement Audit)'],
  ] as const;
  for (const [name, expected, actual, what] of outcomes) {
    if (jsonEqual(expected ?? [], actual, false)) continue;
    differs(
      `expect.${name}`,
      expected === undefined
        ? `Reject rules ${what} matched, and the case expects none`
        : `the ${name} are not the ones expected`,
      expected ?? [],
      actual,
    );
  }
  const failures = (expect.failures ?? []).map(present);
  const actualFailures = result.failures.map((f, i) =>
    projected(
      {
        rule: f.rule,
        field: f.field ?? 'spec',
        code: f.code,
        message: f.message,
        failurePolicy: f.failurePolicy,
      },
      failures[i],
    ),
  );
  if (!jsonEqual(failures, actualFailures, false)) {
    differs(
      'expect.failures',
      expect.failures === undefined
        ? 'rules failed and were skipped, and the case expects no failure'
        : 'the rule failures are not the ones expected',
      failures,
      actualFailures,
    );
  }
  const applied = result.applied.map((a) => a.rule);
  if (expect.applied !== undefined && !jsonEqual(expect.applied, applied, false)) {
    // Why: the match item of each expected rule that did not match (explained on demand).
    const reasons = explain === undefined ? [] : appliedReasons(explain(), expect.applied, applied);
    differs(
      'expect.applied',
      'the rules that applied are not the ones expected',
      expect.applied,
      applied,
      reasons,
    );
  }
  return problems;
}

/** The members of an expected failure that are stated. */
function present(failure: ExpectedFailure): JsonObject {
  const out: JsonObject = { rule: failure.rule };
  if (failure.field !== undefined) out.field = failure.field;
  if (failure.code !== undefined) out.code = failure.code;
  if (failure.message !== undefined) out.message = failure.message;
  if (failure.failurePolicy !== undefined) out.failurePolicy = failure.failurePolicy;
  return out;
}

/** An actual failure reduced to the members its expected counterpart states (all without one). */
function projected(actual: JsonObject, expected: JsonObject | undefined): JsonObject {
  if (expected === undefined) return actual;
  const out: JsonObject = {};
  for (const key of Object.keys(actual)) {
    const value = actual[key];
    if (key in expected && value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The hunks of the YAML diff between two values (the `Index`/`---`/`+++` header dropped: the
 * problem's message names the sides). Bounded like the dryrun's diff.
 */
function diffOf(expected: JsonValue, actual: JsonValue, work?: Partial<WorkLimits>): string {
  const diff = dryRunDiff(expected, actual, {
    name: 'value',
    ...(work === undefined ? {} : { work }),
  });
  if (diff === '') return '# both sides print alike in YAML but differ in type\n';
  const hunks = diff.indexOf('\n@@');
  return hunks === -1 ? diff : diff.slice(hunks + 1);
}
