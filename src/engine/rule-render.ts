import type { JsonObject, JsonPatchOperation, JsonValue } from './json.js';
import type { TemplateLimits } from './template/index.js';
import type { CompiledPatchOperation, CompiledRule } from './rule.js';
import { goQuote } from './template/go-printf.js';
import { KubemodError, errorCatalog } from '../errors/catalog.js';

/** A rule that failed while evaluating one request: it was skipped, the others still applied. */
export interface RuleFailure {
  /** `<namespace>/<name>` */
  readonly rule: string;
  readonly namespace: string;
  readonly name: string;
  /** The ModRule field that failed, e.g. `spec.patch[1].value`, when known. */
  readonly field: string | undefined;
  readonly code: string;
  readonly message: string;
}

export interface RenderContext {
  readonly namespace: string;
  readonly limits: Partial<TemplateLimits> | undefined;
}

/**
 * Renders a matching Patch rule's operations against the object: one operation per select result
 * (placeholders filled from the captured keys), values rendered as templates then read as YAML.
 */
export function renderRuleOperations(
  rule: CompiledRule,
  target: JsonObject,
  context: RenderContext,
): RenderedOperations {
  const operations: JsonPatchOperation[] = [];
  const fields: string[] = [];
  for (const op of rule.patch) {
    try {
      renderOperation(op, target, context, operations);
    } catch (err) {
      throw err instanceof KubemodError ? err.atField(fieldOf(err, op)) : err;
    }
    while (fields.length < operations.length) fields.push(op.field);
  }
  return { operations, fields };
}

/** A rule's rendered operations and, for each, the `spec.patch[i]` it came from. */
export interface RenderedOperations {
  readonly operations: JsonPatchOperation[];
  readonly fields: readonly string[];
}

function fieldOf(err: KubemodError, op: CompiledPatchOperation): string {
  if (err.kind.startsWith('TEMPLATE') || err.kind === 'PATCH_VALUE') return `${op.field}.value`;
  if (err.kind.startsWith('EXPR')) return `${op.field}.select`;
  return `${op.field}.path`;
}

function renderOperation(
  op: CompiledPatchOperation,
  target: JsonObject,
  context: RenderContext,
  out: JsonPatchOperation[],
): void {
  const items =
    op.select === undefined ? [{ value: undefined, keyParts: [] }] : op.select.items(target);
  for (const item of items) {
    const path = op.path.render(item.keyParts);
    if (op.op === 'remove') {
      out.push({ op: 'remove', path });
      continue;
    }
    let value: JsonValue = null;
    if (op.value !== undefined) {
      value = op.value.isStatic
        ? op.parseValue(op.value.source)
        : op.parseValue(
            op.value.render(
              {
                Target: target,
                Namespace: context.namespace,
                SelectedItem: item.value,
                SelectKeyParts: item.keyParts,
              },
              context.limits,
            ),
          );
    }
    out.push({ op: op.op, path, value });
  }
}

/** KubeMod's rejection text: `<ns>/<name>: "<message>"`, or `<ns>/<name>` when there is none or it fails. */
export function renderRejection(
  rule: CompiledRule,
  target: JsonObject,
  context: RenderContext,
): { text: string; failure: RuleFailure | undefined } {
  if (rule.rejectMessage === undefined) return { text: rule.key, failure: undefined };
  try {
    const message = rule.rejectMessage.render(
      { Target: target, Namespace: context.namespace },
      context.limits,
    );
    return { text: `${rule.key}: ${goQuote(message)}`, failure: undefined };
  } catch (err) {
    const failure = failureOf(
      rule,
      err instanceof KubemodError ? err.atField('spec.rejectMessage') : err,
    );
    return { text: rule.key, failure };
  }
}

export function failureOf(rule: CompiledRule, err: unknown): RuleFailure {
  const known = err instanceof KubemodError;
  return {
    rule: rule.key,
    namespace: rule.namespace,
    name: rule.name,
    field: known ? err.field : undefined,
    code: known ? err.code : errorCatalog.RULE_EVAL.code,
    message: known ? err.rawMessage() : err instanceof Error ? err.message : String(err),
  };
}
