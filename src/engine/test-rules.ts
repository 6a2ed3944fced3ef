import { formatFieldErrors } from '../api/index.js';
import { validateModRule } from './validate-modrule.js';
import { compileRule, type CompiledRule } from './rule.js';

/** Builds a compiled rule from a compact spec, for tests and benchmarks. */
export function makeRule(
  namespace: string | undefined,
  name: string,
  spec: Record<string, unknown>,
): CompiledRule {
  const result = validateModRule({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  });
  if (!result.ok) throw new Error(formatFieldErrors(result.errors));
  return compileRule(result.modRule);
}
