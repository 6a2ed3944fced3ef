import { isJsonObject, type JsonObject } from '../engine/json.js';
import { compileRegex, type GoRegex } from '../engine/regex.js';
import { KubemodError } from '../errors/catalog.js';

/** The namespace label that opts a namespace in to apply-to-existing unless the admin names another. */
export const DEFAULT_APPLY_NAMESPACE_LABEL = 'apply-to-existing.kubemod.io/enabled=true';

/**
 * Which namespaces an admin lets use apply-to-existing: those carrying a label, and those whose
 * name a regex matches in full. The namespace is the rule's own (kubemod-system for cluster-wide
 * rules): a tenant cannot label its namespace, so the choice stays with the admin.
 */
export interface ApplyOptIn {
  readonly label: { readonly key: string; readonly value: string };
  readonly regex: GoRegex | undefined;
}

/** Parses `--apply-existing-namespace-label key=value`; throws INPUT_INVALID naming the flag. */
export function parseOptInLabel(raw: string): ApplyOptIn['label'] {
  const eq = raw.indexOf('=');
  const key = eq < 0 ? '' : raw.slice(0, eq);
  const value = eq < 0 ? '' : raw.slice(eq + 1);
  const name =
    /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
  const labelValue = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
  if (!name.test(key) || !labelValue.test(value))
    throw new KubemodError(
      'INPUT_INVALID',
      `--apply-existing-namespace-label must be <label key>=<label value>, got ${JSON.stringify(raw)}`,
    );
  return { key, value };
}

/** Compiles `--apply-existing-namespace-regex` (RE2, matched against the whole name). */
export function parseOptInRegex(raw: string | undefined): GoRegex | undefined {
  if (raw === undefined) return undefined;
  try {
    return compileRegex(`^(?:${raw})$`);
  } catch (err) {
    throw new KubemodError(
      'INPUT_INVALID',
      `--apply-existing-namespace-regex ${JSON.stringify(raw)} is not a valid RE2 expression: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Undefined when the namespace is opted in; otherwise why not, for the rule's status. */
export function optInRefusal(
  optIn: ApplyOptIn,
  namespace: string,
  manifest: JsonObject | undefined,
): string | undefined {
  const metadata = manifest?.metadata;
  const labels = isJsonObject(metadata) && isJsonObject(metadata.labels) ? metadata.labels : {};
  if (labels[optIn.label.key] === optIn.label.value) return undefined;
  if (optIn.regex?.test(namespace) === true) return undefined;
  return `apply-to-existing is not enabled in namespace ${namespace}: an admin enables it by labelling the namespace ${optIn.label.key}=${optIn.label.value}${optIn.regex === undefined ? '' : ' or naming it in --apply-existing-namespace-regex'}`;
}
