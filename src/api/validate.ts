import { defaultSpec } from './defaults.js';
import { FieldReader } from './field-reader.js';
import {
  ADMISSION_OPERATIONS,
  MATCH_FOR_VALUES,
  MAX_EXECUTION_TIER,
  MIN_EXECUTION_TIER,
  MODRULE_API_VERSION,
  MODRULE_KIND,
  MODRULE_TYPES,
  PATCH_OPS,
  type AdmissionOperation,
  type DefaultedModRule,
  type FieldError,
  type MatchItemSpec,
  type ModRuleSpec,
  type ModRuleType,
  type ObjectMeta,
  type PatchOperationSpec,
} from './modrule-types.js';
import { readBehaviourAnnotations } from './annotation-checks.js';

export type ValidationResult =
  | { readonly ok: true; readonly modRule: DefaultedModRule }
  | {
      readonly ok: false;
      readonly errors: readonly FieldError[];
      /** The rule as far as it could be read (its spec was readable), for further checks. */
      readonly partial?: DefaultedModRule | undefined;
    };

const SPEC_FIELDS = [
  'type',
  'executionTier',
  'admissionOperations',
  'match',
  'patch',
  'rejectMessage',
  'targetNamespaceRegex',
];
const MATCH_FIELDS = ['select', 'matchFor', 'matchValue', 'matchValues', 'matchRegex', 'negate'];
const PATCH_FIELDS = ['op', 'select', 'path', 'value'];

/**
 * Validates the structure of an untrusted ModRule (parsed YAML/JSON or an admission request's
 * object) and returns it typed and defaulted, or every problem found, each with its field path.
 * The expressions it holds (selects, regexes, templates, patch paths) are the engine's to check:
 * validateModRule in src/engine/validate-modrule.ts does both, as the validating webhook does.
 */
export function validateModRuleStructure(input: unknown): ValidationResult {
  const r = new FieldReader();
  const root = r.object(input, 'ModRule');
  if (root === undefined) return { ok: false, errors: r.errors };
  if (root.apiVersion !== undefined && root.apiVersion !== MODRULE_API_VERSION) {
    r.fail('apiVersion', `must be ${MODRULE_API_VERSION}, got ${JSON.stringify(root.apiVersion)}`);
  }
  if (root.kind !== undefined && root.kind !== MODRULE_KIND) {
    r.fail('kind', `must be ${MODRULE_KIND}, got ${JSON.stringify(root.kind)}`);
  }
  const metadata = readMetadata(r, root.metadata);
  const spec =
    root.spec === undefined ? (r.fail('spec', 'is required'), undefined) : readSpec(r, root.spec);
  const annotations = readBehaviourAnnotations(r, annotationsOf(root.metadata), typeOf(root.spec));
  if (spec === undefined) return { ok: false, errors: r.errors };
  const modRule: DefaultedModRule = {
    apiVersion: MODRULE_API_VERSION,
    kind: MODRULE_KIND,
    metadata: {
      ...(metadata ?? { name: '' }),
      ...(annotations === undefined ? {} : { annotations }),
    },
    spec: defaultSpec(spec),
  };
  if (r.errors.length > 0 || metadata === undefined) {
    return { ok: false, errors: r.errors, partial: modRule };
  }
  return { ok: true, modRule };
}

/** One line per problem: `spec.match[2].matchRegex: invalid regular expression …`. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}

/** The spec's type when it is a valid one (readSpec reads an unknown type as Patch). */
function typeOf(spec: unknown): ModRuleType | undefined {
  const type =
    typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>).type : undefined;
  return MODRULE_TYPES.find((t) => t === type);
}

function annotationsOf(metadata: unknown): unknown {
  return typeof metadata === 'object' && metadata !== null
    ? (metadata as Record<string, unknown>).annotations
    : undefined;
}

function readMetadata(r: FieldReader, value: unknown): ObjectMeta | undefined {
  const meta = r.object(value ?? {}, 'metadata');
  if (meta === undefined) return undefined;
  const name = r.requiredString(meta.name, 'metadata.name');
  const namespace = r.optionalString(meta.namespace, 'metadata.namespace');
  if (name === undefined) return undefined;
  return {
    name,
    namespace,
    uid: typeof meta.uid === 'string' ? meta.uid : undefined,
    generation: typeof meta.generation === 'number' ? meta.generation : undefined,
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined,
  };
}

function readSpec(r: FieldReader, value: unknown): ModRuleSpec | undefined {
  const spec = r.object(value, 'spec');
  if (spec === undefined) return undefined;
  r.noUnknownFields(spec, SPEC_FIELDS, 'spec');
  const type = r.oneOf(spec.type, MODRULE_TYPES, 'spec.type', 'type');
  const executionTier = readTier(r, spec.executionTier);
  const admissionOperations = r
    .optionalArray(spec.admissionOperations, 'spec.admissionOperations')
    ?.map((op, i) =>
      r.oneOf(op, ADMISSION_OPERATIONS, `spec.admissionOperations[${i}]`, 'operation'),
    )
    .filter((op): op is AdmissionOperation => op !== undefined);
  const matchList =
    spec.match === undefined
      ? (r.fail('spec.match', 'is required'), [])
      : r.optionalArray(spec.match, 'spec.match');
  if (spec.match !== undefined && matchList?.length === 0)
    r.fail('spec.match', 'must have at least one criteria item');
  const match = (matchList ?? []).map((item, i) => readMatchItem(r, item, `spec.match[${i}]`));
  const patchList = r.optionalArray(spec.patch, 'spec.patch');
  const patch = patchList?.map((op, i) => readPatchOp(r, op, `spec.patch[${i}]`));
  const rejectMessage = r.optionalString(spec.rejectMessage, 'spec.rejectMessage');
  const targetNamespaceRegex = r.optionalString(
    spec.targetNamespaceRegex,
    'spec.targetNamespaceRegex',
  );
  if (type === 'Patch' && (patch === undefined || patch.length === 0)) {
    r.fail('spec.patch', 'is required for a Patch rule and must have at least one operation');
  }
  if (type === 'Reject' && patch !== undefined && patch.length > 0) {
    r.fail('spec.patch', 'must be empty for a Reject rule (a Reject rule only matches)');
  }
  if (type === 'Patch' && rejectMessage !== undefined) {
    r.fail('spec.rejectMessage', 'is only allowed on a Reject rule');
  }
  return {
    // An unknown type has been reported; 'Patch' only lets the expressions still be checked.
    type: type ?? 'Patch',
    executionTier,
    admissionOperations,
    match: match.filter((m): m is MatchItemSpec => m !== undefined),
    patch: patch?.filter((p): p is PatchOperationSpec => p !== undefined),
    rejectMessage,
    targetNamespaceRegex,
  };
}

function readTier(r: FieldReader, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < MIN_EXECUTION_TIER ||
    value > MAX_EXECUTION_TIER
  ) {
    r.fail(
      'spec.executionTier',
      `must be an integer between ${MIN_EXECUTION_TIER} and ${MAX_EXECUTION_TIER}, got ${JSON.stringify(value)}`,
    );
    return undefined;
  }
  return value;
}

function readMatchItem(r: FieldReader, value: unknown, field: string): MatchItemSpec | undefined {
  const item = r.object(value, field);
  if (item === undefined) return undefined;
  r.noUnknownFields(item, MATCH_FIELDS, field);
  const select = r.requiredString(item.select, `${field}.select`);
  const matchFor =
    item.matchFor === undefined || item.matchFor === null
      ? undefined
      : r.oneOf(item.matchFor, MATCH_FOR_VALUES, `${field}.matchFor`, 'matchFor');
  const matchValues = r
    .optionalArray(item.matchValues, `${field}.matchValues`)
    ?.map((v, i) => r.optionalString(v, `${field}.matchValues[${i}]`) ?? '');
  const spec: MatchItemSpec = {
    select: select ?? '',
    matchFor,
    matchValue: r.optionalString(item.matchValue, `${field}.matchValue`),
    matchValues,
    matchRegex: r.optionalString(item.matchRegex, `${field}.matchRegex`),
    negate: r.optionalBoolean(item.negate, `${field}.negate`),
  };
  return select === undefined ? undefined : spec;
}

function readPatchOp(
  r: FieldReader,
  value: unknown,
  field: string,
): PatchOperationSpec | undefined {
  const item = r.object(value, field);
  if (item === undefined) return undefined;
  r.noUnknownFields(item, PATCH_FIELDS, field);
  const op = r.oneOf(item.op, PATCH_OPS, `${field}.op`, 'op');
  const path = r.requiredString(item.path, `${field}.path`);
  const select = r.optionalString(item.select, `${field}.select`);
  if (select !== undefined && select.trim() === '')
    r.fail(`${field}.select`, 'must not be empty when present');
  const rawValue: unknown = item.value;
  const valueText =
    typeof rawValue === 'number' || typeof rawValue === 'boolean'
      ? String(rawValue)
      : r.optionalString(rawValue, `${field}.value`);
  if (op === undefined || path === undefined) return undefined;
  return { op, path, select, value: valueText };
}
