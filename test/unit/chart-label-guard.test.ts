import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_APPLY_EXISTING_NAMESPACE_LABEL } from '../../scripts/chart/chart-values.js';
import { IGNORE_LABEL } from '../../src/audit/run/scope-plan.js';
import { DEFAULT_APPLY_NAMESPACE_LABEL } from '../../src/authz/apply-opt-in.js';

// The namespace-label guard (config/optional/namespace-label-guard.yaml) reserves the labels the
// operator reads: its list must name the operator's own constants, and the chart's copy must
// reserve the apply-to-existing label the chart configures (applyToExisting.namespaceLabel).

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

interface Policy {
  readonly kind: string;
  readonly spec: { readonly variables?: readonly { name: string; expression: string }[] };
}

function reservedExpression(text: string): string | undefined {
  const policy = (loadAll(text) as Policy[]).find((o) => o.kind === 'ValidatingAdmissionPolicy');
  return policy?.spec.variables?.find((v) => v.name === 'reserved')?.expression;
}

describe('the namespace-label guard', () => {
  it('reserves the ignore label and the default apply-to-existing label of the operator', () => {
    const applyKey = DEFAULT_APPLY_NAMESPACE_LABEL.split('=')[0] ?? '';
    expect(DEFAULT_APPLY_EXISTING_NAMESPACE_LABEL).toBe(DEFAULT_APPLY_NAMESPACE_LABEL);
    expect(reservedExpression(read('config/optional/namespace-label-guard.yaml'))).toBe(
      `['${IGNORE_LABEL}', '${applyKey}']`,
    );
  });

  it('reserves, in the chart, the key of applyToExisting.namespaceLabel', () => {
    const template = read('charts/kubemod-ts/templates/optional-namespace-label-guard.yaml');
    expect(template.split('\n')[1]).toBe('{{- if .Values.namespaceLabelGuard.enabled }}');
    const line = template.split('\n').find((l) => l.includes("'admission.kubemod.io/ignore'"));
    expect(line?.trim()).toBe(
      `expression: {{ printf "['${IGNORE_LABEL}', %s]" (splitList "=" .Values.applyToExisting.namespaceLabel | first | squote) | quote }}`,
    );
  });
});
