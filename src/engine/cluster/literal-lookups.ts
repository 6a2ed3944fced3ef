import type { FieldError, ModRuleSpec } from '../../api/modrule-types.js';
import { errorCatalog } from '../../errors/catalog.js';
import { isClusterScopedKind } from './cluster-scoped-kinds.js';
import type { ObjectKey } from './cluster-view.js';
import { describeKey, pinRefusal } from './namespace-pin.js';

/** A `lookup` whose apiVersion, kind and namespace are written as string literals. */
export interface LiteralLookup {
  /** Where it is written: `spec.patch[0].value`, `spec.rejectMessage`, `spec.match[1].select`… */
  readonly field: string;
  /** Its arguments; `name` is "" when the name is computed (any name of that kind and namespace). */
  readonly key: ObjectKey;
}

const STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
/** `lookup "apiVersion" "kind" "namespace"` then a literal name or anything else. */
const LITERAL_LOOKUP = new RegExp(
  String.raw`\blookup\s+${STRING}\s+${STRING}\s+${STRING}(?:\s+${STRING}(?=[\s)}|]))?`,
  'g',
);

/** Templates longer than this are not scanned (the template compiler refuses them anyway). */
const MAX_SCANNED_CHARS = 1 << 20;

/**
 * The lookups of a ModRule whose target is written literally, for the checks made when the rule
 * is admitted: the namespace pinning below, and (operator) an access review of the requesting user
 * on each. Computed arguments are checked when the rule is evaluated (the ClusterView).
 */
export function literalLookups(rule: { readonly spec: ModRuleSpec }): LiteralLookup[] {
  const out: LiteralLookup[] = [];
  for (const [field, source] of templatedFields(rule.spec)) {
    if (source.length > MAX_SCANNED_CHARS || !source.includes('lookup')) continue;
    for (const m of source.matchAll(LITERAL_LOOKUP)) {
      const [apiVersion, kind, namespace, name] = [m[1], m[2], m[3], m[4]].map(goString);
      out.push({
        field,
        key: {
          apiVersion: apiVersion ?? '',
          kind: kind ?? '',
          namespace: namespace ?? '',
          name: name ?? '',
        },
      });
    }
  }
  return out;
}

/**
 * Field errors for literal lookups a rule of `namespace` may never make: another namespace, or a
 * cluster-scoped kind, unless the rule is in the cluster namespace.
 */
export function literalLookupErrors(
  rule: { readonly spec: ModRuleSpec },
  namespace: string,
  clusterNamespace: string,
): FieldError[] {
  if (namespace === clusterNamespace) return [];
  const errors: FieldError[] = [];
  for (const { field, key } of literalLookups(rule)) {
    const scoped =
      isClusterScopedKind(key.kind) && key.namespace !== '' ? { ...key, namespace: '' } : key;
    const refusal = pinRefusal({ namespace, name: '' }, scoped, clusterNamespace);
    if (refusal === undefined) continue;
    errors.push({
      field,
      code: errorCatalog.LOOKUP_REFUSED.code,
      message: `lookup ${describeKey({ ...scoped, name: key.name === '' ? '…' : key.name })}: ${refusal}`,
    });
  }
  return errors;
}

function* templatedFields(spec: ModRuleSpec): Generator<[string, string]> {
  for (const [i, item] of spec.match.entries())
    yield [`spec.match[${String(i)}].select`, item.select];
  for (const [i, op] of (spec.patch ?? []).entries()) {
    const field = `spec.patch[${String(i)}]`;
    if (op.select !== undefined) yield [`${field}.select`, op.select];
    yield [`${field}.path`, op.path];
    if (op.value !== undefined) yield [`${field}.value`, op.value];
  }
  if (spec.rejectMessage !== undefined) yield ['spec.rejectMessage', spec.rejectMessage];
}

/** A Go interpreted string literal's value (the common escapes; others kept as written). */
function goString(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
