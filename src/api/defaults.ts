import type {
  AdmissionOperation,
  DefaultedModRule,
  DefaultedModRuleSpec,
  ModRule,
  ModRuleSpec,
} from './modrule-types.js';

/** Operations a rule handles when `admissionOperations` is empty or absent. */
export const DEFAULT_ADMISSION_OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE'];

/** KubeMod's defaults: matchFor Any, admissionOperations CREATE+UPDATE, executionTier 0. */
export function defaultSpec(spec: ModRuleSpec): DefaultedModRuleSpec {
  const operations = spec.admissionOperations ?? [];
  return {
    ...spec,
    executionTier: spec.executionTier ?? 0,
    admissionOperations: operations.length === 0 ? DEFAULT_ADMISSION_OPERATIONS : operations,
    match: spec.match.map((item) => ({ ...item, matchFor: item.matchFor ?? 'Any' })),
  };
}

export function defaultModRule(rule: ModRule): DefaultedModRule {
  return { ...rule, spec: defaultSpec(rule.spec) };
}
