import { FAILURE_POLICIES, PATCH_OPS } from '../../api/index.js';
import type { FieldReader } from '../../api/field-reader.js';
import { describe } from '../../api/field-reader.js';
import type { JsonObject, JsonPatchOperation, JsonValue } from '../../engine/json.js';
import { errorCatalog } from '../../errors/catalog.js';
import type { CaseExpectations, ExpectedFailure } from './test-file.js';

/** Reads a manifest given inline or as a file path (see the loader); undefined when invalid. */
export type ManifestReader = (value: unknown, field: string) => JsonObject | undefined;

export const EXPECT_FIELDS = [
  'patched',
  'patch',
  'noChange',
  'rejections',
  'warnings',
  'audited',
  'failures',
  'applied',
];
export const OP_FIELDS = ['op', 'path', 'value'];
export const FAILURE_FIELDS = ['rule', 'field', 'code', 'message', 'failurePolicy'];
const CATALOG_CODES: ReadonlySet<string> = new Set(
  Object.values(errorCatalog).map((entry) => entry.code),
);

/**
 * A case's `expect` section. Every problem is reported on `r` with its field path
 * (`expect.patch[2].op`); the result is undefined when there was one.
 */
export function readExpectations(
  value: unknown,
  r: FieldReader,
  manifest: ManifestReader,
): CaseExpectations | undefined {
  if (!given(value)) {
    r.fail('expect', `is required (one or more of ${EXPECT_FIELDS.join(', ')})`);
    return undefined;
  }
  const expect = r.object(value, 'expect');
  if (expect === undefined) return undefined;
  const before = r.errors.length;
  r.noUnknownFields(expect, EXPECT_FIELDS, 'expect');
  if (!EXPECT_FIELDS.some((key) => given(expect[key]))) {
    r.fail('expect', `must state at least one of ${EXPECT_FIELDS.join(', ')}`);
  }
  const patched = given(expect.patched) ? manifest(expect.patched, 'expect.patched') : undefined;
  const patch = list(expect.patch, 'expect.patch', r, readOperation);
  const noChange = r.optionalBoolean(expect.noChange, 'expect.noChange');
  if (noChange === false) {
    r.fail('expect.noChange', 'must be true when given (leave it out not to check the patch)');
  }
  if (noChange === true && (given(expect.patch) || given(expect.patched))) {
    r.fail('expect.noChange', 'cannot be combined with expect.patch or expect.patched');
  }
  const rejections = list(expect.rejections, 'expect.rejections', r, readString);
  const warnings = list(expect.warnings, 'expect.warnings', r, readString);
  const audited = list(expect.audited, 'expect.audited', r, readString);
  const failures = list(expect.failures, 'expect.failures', r, readFailure);
  const applied = list(expect.applied, 'expect.applied', r, readString);
  if (r.errors.length > before) return undefined;
  return {
    patched,
    patch,
    noChange: noChange === true,
    rejections,
    warnings,
    audited,
    failures,
    applied,
  };
}

function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** An optional list whose every item `read` accepts; undefined when absent. */
function list<T>(
  value: unknown,
  field: string,
  r: FieldReader,
  read: (item: unknown, field: string, r: FieldReader) => T | undefined,
): T[] | undefined {
  const items = r.optionalArray(value, field);
  if (items === undefined) return undefined;
  const out: T[] = [];
  items.forEach((item, i) => {
    const one = read(item, `${field}[${String(i)}]`, r);
    if (one !== undefined) out.push(one);
  });
  return out;
}

function readString(value: unknown, field: string, r: FieldReader): string | undefined {
  if (typeof value === 'string') return value;
  r.fail(field, `must be a string, got ${describe(value)}`);
  return undefined;
}

/** One expected RFC 6902 operation, as the webhook's patch holds them (add, replace, remove). */
function readOperation(
  value: unknown,
  field: string,
  r: FieldReader,
): JsonPatchOperation | undefined {
  const item = r.object(value, field);
  if (item === undefined) return undefined;
  r.noUnknownFields(item, OP_FIELDS, field);
  let op: (typeof PATCH_OPS)[number] | undefined;
  if (item.op === undefined || item.op === null) r.fail(`${field}.op`, 'is required');
  else op = r.oneOf(item.op, PATCH_OPS, `${field}.op`, 'op');
  const path = readPointer(item.path, `${field}.path`, r);
  const hasValue = Object.prototype.hasOwnProperty.call(item, 'value');
  if (op === 'remove' && hasValue) {
    r.fail(`${field}.value`, 'must not be given for op remove');
  }
  if ((op === 'add' || op === 'replace') && !hasValue) {
    r.fail(`${field}.value`, `is required for op ${op}`);
  }
  if (op === undefined || path === undefined) return undefined;
  if (op === 'remove') return { op, path };
  return { op, path, value: item.value as JsonValue };
}

function readPointer(value: unknown, field: string, r: FieldReader): string | undefined {
  const path = r.requiredString(value, field);
  if (path === undefined) return undefined;
  if (!path.startsWith('/')) {
    r.fail(field, `must be a JSON pointer starting with "/", got ${JSON.stringify(path)}`);
    return undefined;
  }
  return path;
}

function readFailure(value: unknown, field: string, r: FieldReader): ExpectedFailure | undefined {
  const item = r.object(value, field);
  if (item === undefined) return undefined;
  r.noUnknownFields(item, FAILURE_FIELDS, field);
  const rule = r.requiredString(item.rule, `${field}.rule`);
  if (rule !== undefined && !/^[^/]+\/[^/]+$/.test(rule)) {
    r.fail(`${field}.rule`, `must be <namespace>/<name>, got ${JSON.stringify(rule)}`);
  }
  const code = r.optionalString(item.code, `${field}.code`);
  if (code !== undefined && !CATALOG_CODES.has(code)) {
    r.fail(`${field}.code`, `must be an error code such as KM5002, got ${JSON.stringify(code)}`);
  }
  const failure: ExpectedFailure = {
    rule: rule ?? '',
    field: r.optionalString(item.field, `${field}.field`),
    code,
    message: r.optionalString(item.message, `${field}.message`),
    failurePolicy:
      item.failurePolicy === undefined || item.failurePolicy === null
        ? undefined
        : r.oneOf(item.failurePolicy, FAILURE_POLICIES, `${field}.failurePolicy`, 'failure policy'),
  };
  return rule === undefined ? undefined : failure;
}
