import type { AdmissionOperation } from '../../api/index.js';
import type { JsonObject, JsonPatchOperation } from '../../engine/json.js';
import type { RuleSets } from './rule-set.js';
import type { StaticCluster } from '../../engine/cluster/static-cluster.js';

/**
 * The model of a ModRule test file (`kubemod-test.yaml`, see docs/testing-rules.md) once loaded
 * and checked: every referenced file read, every default applied.
 */

/** File names `kubemod-ts test <dir>` runs: exactly these, or ending in `.` + one of them. */
export const TEST_FILE_NAMES: readonly string[] = ['kubemod-test.yaml', 'kubemod-test.yml'];

/** Whether a file name follows the naming convention of test files. */
export function isTestFileName(name: string): boolean {
  return TEST_FILE_NAMES.some((base) => name === base || name.endsWith(`.${base}`));
}

/** Bounds of one test file (besides MAX_INPUT_BYTES per file read and the YAML loader's own). */
export const TEST_FILE_LIMITS = Object.freeze({
  /** Cases in one file. */
  maxCases: 1000,
  /** ModRule documents one file's `rules` may bring, inline and from files together. */
  maxRules: 1000,
  /** Characters of a case name (it is one line of output and a JUnit test name). */
  maxNameLength: 200,
  /** Error lines reported for one invalid file (the rest are counted). */
  maxErrors: 50,
});

/** A rule failure a case expects: the rule, and optionally its field, code and message. */
export interface ExpectedFailure {
  readonly rule: string;
  readonly field?: string | undefined;
  readonly code?: string | undefined;
  readonly message?: string | undefined;
  readonly failurePolicy?: 'Ignore' | 'Fail' | undefined;
}

/**
 * What a case expects. `patched`, `patch`, `noChange` and `applied` are checked when given;
 * `rejections`, `warnings`, `audited` and `failures` are always checked, and when not given none
 * are expected (Reject rules in Warn and Audit mode, api.kubemod.io/enforcement, answer in
 * `warnings` and `audited` instead of `rejections`).
 */
export interface CaseExpectations {
  readonly patched?: JsonObject | undefined;
  readonly patch?: JsonPatchOperation[] | undefined;
  readonly noChange: boolean;
  readonly rejections?: string[] | undefined;
  readonly warnings?: string[] | undefined;
  readonly audited?: string[] | undefined;
  readonly failures?: readonly ExpectedFailure[] | undefined;
  readonly applied?: string[] | undefined;
}

/** Manifests of the request's Namespace and of a Pod's Node, injected as the webhook does. */
export interface CaseRefs {
  readonly namespace?: JsonObject | undefined;
  readonly node?: JsonObject | undefined;
}

export interface RuleTestCase {
  readonly name: string;
  /** The 1-based line of the case in its file (caseLines), for reports and annotations. */
  readonly line?: number | undefined;
  /** The object the rules see: the new object, or for DELETE the object being deleted. */
  readonly resource: JsonObject;
  /** The object before the change (UPDATE, DELETE), when the case gives it. */
  readonly oldResource?: JsonObject | undefined;
  readonly operation: AdmissionOperation;
  /** The admission request's namespace; undefined for a cluster-scoped request. */
  readonly namespace: string | undefined;
  /** What was assumed to decide the namespace (RequestNamespace.reason), for explanations. */
  readonly namespaceReason?: string | undefined;
  readonly refs: CaseRefs;
  /** What lookups read (`cluster:` of the case, else of the file); undefined when neither has one. */
  readonly cluster?: StaticCluster | undefined;
  readonly expect: CaseExpectations;
}

export interface RuleTestFile {
  /** The file as named on output (as found from the command line's paths). */
  readonly file: string;
  /** The file's ModRules (all valid: a file with an invalid rule does not load). */
  readonly rules: RuleSets;
  readonly cases: readonly RuleTestCase[];
}

/** A loaded file, or the lines that say why it is invalid (each naming the file and field). */
export type TestFileLoad =
  | { readonly ok: true; readonly test: RuleTestFile }
  | { readonly ok: false; readonly file: string; readonly errors: readonly string[] };
