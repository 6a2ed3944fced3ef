import { dirname, isAbsolute, join } from 'node:path';
import { ADMISSION_OPERATIONS, type AdmissionOperation } from '../../api/index.js';
import { describe, FieldReader } from '../../api/field-reader.js';
import type { JsonObject } from '../../engine/json.js';
import type { StaticCluster } from '../../engine/cluster/static-cluster.js';
import { parseDocuments } from '../../engine/load-rules.js';
import { parseManifestDocuments } from '../../engine/manifest-documents.js';
import { describeError, errorCatalog } from '../../errors/catalog.js';
import { readResource, readText } from '../read-inputs.js';
import {
  resolveRequestNamespace,
  withRequestNamespace,
  type RequestNamespace,
} from '../../engine/request-namespace.js';
import {
  kubectlCase,
  readKubectlView,
  withKubectlManifests,
  type KubectlView,
} from './kubectl-view.js';
import { readExpectations } from './read-expectations.js';
import {
  caseName,
  checkRefsApply,
  isRecord,
  nonEmptyList,
  pairOldResource,
  readRefs,
  type ManifestReader,
} from './test-file-checks.js';
import { readRuleEntries } from './read-rule-entries.js';
import { caseLine, caseLines } from './case-address.js';
import { readClusterField } from '../read-cluster.js';
import { createRuleSets } from './rule-set.js';
import {
  TEST_FILE_LIMITS,
  type CaseRefs,
  type RuleTestCase,
  type TestFileLoad,
} from './test-file.js';

export const TOP_FIELDS = ['rules', 'namespace', 'operation', 'syntheticRefs', 'cluster', 'cases'];
export const CASE_FIELDS = [
  'name',
  'resource',
  'oldResource',
  'operation',
  'namespace',
  'syntheticRefs',
  'cluster',
  'expect',
];
const INVALID = errorCatalog.INPUT_INVALID.code;

/** What cases inherit from the top of the file. */
interface Defaults {
  readonly namespace: string | undefined;
  readonly operation: AdmissionOperation;
  readonly refs: CaseRefs;
  readonly cluster: StaticCluster | undefined;
}

/**
 * Reads and checks one test file (format: docs/testing-rules.md). Never throws: an invalid file
 * gives every problem found, one line each, naming the file, the case (`case "<name>"`, or
 * `cases[<i>]` before it has a name) and the field: `x.yaml: case "adds sidecar":
 * expect.patch[2].op: unknown op "move"; must be one of add, replace, remove`. Files the test
 * refers to are resolved from the test file's directory.
 */
export function loadTestFile(file: string): TestFileLoad {
  try {
    return new TestFileLoader(file).load();
  } catch (err) {
    return { ok: false, file, errors: [`${file}: cannot be loaded: ${describeError(err)}`] };
  }
}

class TestFileLoader {
  private readonly errors: string[] = [];
  private readonly dir: string;
  /** Manifest files read so far (cases often share one), or why they could not be. */
  private readonly manifests = new Map<string, JsonObject | string>();
  private readonly names = new Set<string>();
  /** The file read a second time, as kubectl reads manifests (see kubectl-view.ts). */
  private view: KubectlView = { top: undefined, error: undefined };

  constructor(private readonly file: string) {
    this.dir = dirname(file);
  }

  load(): TestFileLoad {
    let text: string;
    try {
      text = readText(this.file);
    } catch (err) {
      return this.invalid([describeError(err)]);
    }
    const parsed = parseDocuments(text, this.file);
    if (parsed.errors.length > 0) return this.invalid(parsed.errors);
    const [doc] = parsed.documents;
    if (parsed.documents.length !== 1 || !isRecord(doc)) {
      const found =
        parsed.documents.length === 1
          ? describe(doc)
          : `${String(parsed.documents.length)} documents`;
      return this.invalid([
        `${this.file}: must be one YAML mapping with rules and cases, found ${found}`,
      ]);
    }
    this.view = readKubectlView(text, this.file);
    if (this.view.error !== undefined) return this.invalid([this.view.error]);
    const top = withKubectlManifests(doc, this.view.top);
    const r = new FieldReader(INVALID);
    r.noUnknownFields(top, TOP_FIELDS, '');
    const entries = readRuleEntries(top.rules, r, (path) => this.resolve(path));
    const defaults: Defaults = {
      namespace: r.optionalString(top.namespace, 'namespace'),
      operation: this.operation(top.operation, 'operation', r) ?? 'CREATE',
      refs: this.refs(top.syntheticRefs, r),
      cluster: this.cluster(top.cluster, r),
    };
    const rawCases = nonEmptyList(top.cases, 'cases', r, 'case');
    if (rawCases !== undefined && rawCases.length > TEST_FILE_LIMITS.maxCases) {
      r.fail(
        'cases',
        `holds ${String(rawCases.length)} cases; a test file takes at most ${String(TEST_FILE_LIMITS.maxCases)}`,
      );
    }
    this.errors.push(...this.lines(r, ''));
    // Rules are compiled per request namespace; their errors do not depend on it.
    const rules = createRuleSets(entries);
    this.errors.push(...rules.forNamespace('default').errors.map((l) => `${this.file}: ${l}`));
    const cases: RuleTestCase[] = [];
    const lines = caseLines(text);
    if (rawCases !== undefined && rawCases.length <= TEST_FILE_LIMITS.maxCases) {
      rawCases.forEach((raw, i) => {
        const one = this.readCase(raw, i, defaults);
        if (one !== undefined) cases.push({ ...one, line: caseLine(lines, i) });
      });
    }
    if (this.errors.length > 0) return this.invalid(this.errors);
    return { ok: true, test: { file: this.file, rules, cases } };
  }

  private invalid(errors: readonly string[]): TestFileLoad {
    const max = TEST_FILE_LIMITS.maxErrors;
    const shown = errors.slice(0, max);
    if (errors.length > max) {
      shown.push(`${this.file}: … and ${String(errors.length - max)} more errors`);
    }
    return { ok: false, file: this.file, errors: shown };
  }

  /** The errors of `r` as lines: `<file>: <scope><field>: <message>`. */
  private lines(r: FieldReader, scope: string): string[] {
    return r.errors.map((e) => `${this.file}: ${scope}${e.field}: ${e.message}`);
  }

  private readCase(raw: unknown, index: number, defaults: Defaults): RuleTestCase | undefined {
    const r = new FieldReader(INVALID);
    const read = r.object(raw, `cases[${String(index)}]`);
    if (read === undefined) {
      this.errors.push(...this.lines(r, ''));
      return undefined;
    }
    const item = withKubectlManifests(read, kubectlCase(this.view, index));
    const name = caseName(item.name, this.names, r);
    const scope =
      name === undefined ? `cases[${String(index)}].` : `case ${JSON.stringify(name)}: `;
    r.noUnknownFields(item, CASE_FIELDS, '');
    const given = (value: unknown): boolean => value !== undefined && value !== null;
    const newObject = given(item.resource)
      ? this.manifest(item.resource, 'resource', r, undefined)
      : undefined;
    const oldResource = given(item.oldResource)
      ? this.manifest(item.oldResource, 'oldResource', r, undefined)
      : undefined;
    if (!given(item.resource) && !given(item.oldResource)) r.fail('resource', 'is required');
    const operation =
      item.operation === undefined
        ? defaults.operation
        : this.operation(item.operation, 'operation', r);
    const paired = pairOldResource(
      operation,
      { given: given(item.resource), object: newObject },
      { given: given(item.oldResource), object: oldResource },
      r,
    );
    const explicitNamespace =
      item.namespace === undefined
        ? defaults.namespace
        : r.optionalString(item.namespace, 'namespace');
    const ownRefs = this.refs(item.syntheticRefs, r);
    const cluster = item.cluster === undefined ? defaults.cluster : this.cluster(item.cluster, r);
    const refs: CaseRefs = { ...defaults.refs, ...ownRefs };
    const expect = readExpectations(item.expect, r, (value, field) =>
      this.manifest(value, field, r, undefined),
    );
    let decided: RequestNamespace | undefined;
    if (paired !== undefined) {
      // kubectl's rule (request-namespace.ts); an empty namespace is a cluster-scoped request.
      decided = resolveRequestNamespace(paired, {
        given: explicitNamespace,
        scopeOf: cluster === undefined ? undefined : (g, k) => cluster.scopeOf(g, k),
      });
      checkRefsApply(paired, decided.namespace, ownRefs, r);
    }
    this.errors.push(...this.lines(r, scope));
    if (r.errors.length > 0 || name === undefined || decided === undefined) return undefined;
    if (paired === undefined || operation === undefined || expect === undefined) return undefined;
    const { namespace, reason, assumed } = decided;
    // The objects as the API server hands them to the webhook: metadata.namespace as decided.
    const resource = withRequestNamespace(paired, namespace);
    const old =
      oldResource === undefined ? undefined : withRequestNamespace(oldResource, namespace);
    return {
      name,
      resource,
      oldResource: old,
      operation,
      namespace,
      ...(assumed ? { namespaceReason: reason } : {}),
      refs,
      cluster,
      expect,
    };
  }

  private cluster(value: unknown, r: FieldReader): StaticCluster | undefined {
    return readClusterField(value, r, (path) => this.resolve(path));
  }

  private operation(value: unknown, field: string, r: FieldReader): AdmissionOperation | undefined {
    if (value === undefined || value === null) return undefined;
    return r.oneOf(value, ADMISSION_OPERATIONS, field, 'operation');
  }

  private refs(value: unknown, r: FieldReader): CaseRefs {
    const manifest: ManifestReader = (v, field, kind) => this.manifest(v, field, r, kind);
    return readRefs(value, 'syntheticRefs', r, manifest, (path) => {
      const file = this.resolve(path);
      try {
        const parsed = parseManifestDocuments(readText(file), file);
        for (const error of parsed.errors) r.fail('syntheticRefs', error);
        return parsed.documents.length === 1 ? parsed.documents[0] : parsed.documents;
      } catch (err) {
        r.fail('syntheticRefs', describeError(err));
        return {};
      }
    });
  }

  /**
   * A manifest given inline, or as the path of a YAML/JSON file holding one (read once per
   * file). `kind`, when given, is the kind the manifest must have if it states one.
   */
  private manifest(
    value: unknown,
    field: string,
    r: FieldReader,
    kind: string | undefined,
  ): JsonObject | undefined {
    let manifest: JsonObject;
    if (typeof value === 'string' && value !== '') {
      const path = this.resolve(value);
      let read = this.manifests.get(path);
      if (read === undefined) {
        try {
          read = readResource(path);
        } catch (err) {
          read = describeError(err);
        }
        this.manifests.set(path, read);
      }
      if (typeof read === 'string') {
        r.fail(field, read);
        return undefined;
      }
      manifest = read;
    } else if (isRecord(value)) {
      manifest = value as JsonObject;
      if (kind === undefined && (typeof manifest.kind !== 'string' || manifest.kind === '')) {
        r.fail(`${field}.kind`, 'is required');
        return undefined;
      }
    } else {
      r.fail(field, `must be a manifest or the path of a file holding one, got ${describe(value)}`);
      return undefined;
    }
    if (kind !== undefined && manifest.kind !== undefined && manifest.kind !== kind) {
      r.fail(`${field}.kind`, `must be ${kind}, got ${describe(manifest.kind)}`);
      return undefined;
    }
    return manifest;
  }

  private resolve(path: string): string {
    return isAbsolute(path) ? path : join(this.dir, path);
  }
}
