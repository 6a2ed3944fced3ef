/** ModRule `api.kubemod.io/v1beta1`, as KubeMod defines it. */
export const MODRULE_GROUP = 'api.kubemod.io';
export const MODRULE_VERSION = 'v1beta1';
export const MODRULE_API_VERSION = `${MODRULE_GROUP}/${MODRULE_VERSION}`;
export const MODRULE_KIND = 'ModRule';
export const MODRULE_PLURAL = 'modrules';

export const MODRULE_TYPES = ['Patch', 'Reject'] as const;
export type ModRuleType = (typeof MODRULE_TYPES)[number];

export const ADMISSION_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE'] as const;
export type AdmissionOperation = (typeof ADMISSION_OPERATIONS)[number];

export const PATCH_OPS = ['add', 'replace', 'remove'] as const;
export type PatchOp = (typeof PATCH_OPS)[number];

export const MATCH_FOR_VALUES = ['Any', 'All'] as const;
export type MatchFor = (typeof MATCH_FOR_VALUES)[number];

/** executionTier bounds (an int16 in KubeMod, with the extremes reserved). */
export const MIN_EXECUTION_TIER = -32767;
export const MAX_EXECUTION_TIER = 32766;

/** A criteria item as written in a ModRule's `match` section. */
export interface MatchItemSpec {
  readonly select: string;
  readonly matchFor?: MatchFor | undefined;
  readonly matchValue?: string | undefined;
  readonly matchValues?: readonly string[] | undefined;
  readonly matchRegex?: string | undefined;
  readonly negate?: boolean | undefined;
}

export interface PatchOperationSpec {
  readonly op: PatchOp;
  readonly select?: string | undefined;
  readonly path: string;
  readonly value?: string | undefined;
}

export interface ModRuleSpec {
  readonly type: ModRuleType;
  readonly executionTier?: number | undefined;
  readonly admissionOperations?: readonly AdmissionOperation[] | undefined;
  readonly match: readonly MatchItemSpec[];
  readonly patch?: readonly PatchOperationSpec[] | undefined;
  readonly rejectMessage?: string | undefined;
  readonly targetNamespaceRegex?: string | undefined;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
  readonly generation?: number | undefined;
  readonly resourceVersion?: string | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}

export interface ModRule {
  readonly apiVersion: typeof MODRULE_API_VERSION;
  readonly kind: typeof MODRULE_KIND;
  readonly metadata: ObjectMeta;
  readonly spec: ModRuleSpec;
}

/** A ModRule spec after defaulting: every optional field that has a default is filled in. */
export interface DefaultedModRuleSpec extends ModRuleSpec {
  readonly executionTier: number;
  readonly admissionOperations: readonly AdmissionOperation[];
  readonly match: readonly (MatchItemSpec & { readonly matchFor: MatchFor })[];
}

export interface DefaultedModRule extends ModRule {
  readonly spec: DefaultedModRuleSpec;
}

/** A problem found in a ModRule, anchored at a field path such as `spec.match[2].matchRegex`. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
  readonly code: string;
}
