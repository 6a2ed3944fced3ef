import type { JsonObject, JsonPatchOperation, JsonValue } from './json.js';
import type { TemplateLimits } from './template/index.js';
import type { CompiledPatchOperation, CompiledRule } from './rule.js';
import { goQuote } from './template/go-printf.js';
import { KubemodError, errorCatalog } from '../errors/catalog.js';
import type { EvaluationTracer } from './explain/tracer.js';
import type { RuleFailurePolicy } from '../api/annotations.js';

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
  /** The rule's `api.kubemod.io/failure-policy`: Fail makes the request refused (see enforcement.ts). */
  readonly failurePolicy: RuleFailurePolicy;
}

export interface RenderContext {
  readonly namespace: string;
  readonly limits: Partial<TemplateLimits> | undefined;
  /** Receives each rendered operation and rejection, when explaining (see EvaluationTracer). */
  readonly trace: EvaluationTracer | undefined;
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
  const rendered: RenderedOperations = { operations: [], fields: [], segments: [] };
  for (const op of rule.patch) renderOperation(op, target, context, rendered);
  return rendered;
}

/**
 * A rule's rendered operations and, for each, the `spec.patch[i]` it came from and its path as
 * segments when the compiled path could give them without parsing (CompiledPath.segments).
 */
export interface RenderedOperations {
  readonly operations: JsonPatchOperation[];
  readonly fields: string[];
  readonly segments: (readonly string[] | undefined)[];
}

/** An error of one stage of an operation, reported at the field of that stage. */
function atStage(err: unknown, field: string, stage: 'select' | 'path' | 'value'): unknown {
  return err instanceof KubemodError ? err.atField(`${field}.${stage}`) : err;
}

function renderOperation(
  op: CompiledPatchOperation,
  target: JsonObject,
  context: RenderContext,
  out: RenderedOperations,
): void {
  // Plain try/catch per stage (no closures): this runs for every operation of every matching rule.
  let items: readonly { value: unknown; keyParts: readonly (string | number)[] }[];
  try {
    items = op.select === undefined ? NO_SELECT : op.select.items(target);
  } catch (err) {
    throw atStage(err, op.field, 'select');
  }
  context.trace?.patchOperation(op, items);
  for (const item of items) {
    let path: string;
    let segments: readonly string[] | undefined;
    try {
      if (op.pathTemplate === undefined) {
        path = op.path.render(item.keyParts);
        segments = op.path.segments?.(item.keyParts);
      } else {
        path = op.pathTemplate.render(target, item);
      }
    } catch (err) {
      throw atStage(err, op.field, 'path');
    }
    if (op.op === 'remove') {
      context.trace?.patchItem(item, path, undefined, undefined);
      push(out, { op: 'remove', path }, op.field, segments);
      continue;
    }
    const template = op.value;
    let text: string | undefined;
    let value: JsonValue = null;
    if (template !== undefined) {
      try {
        text = template.isStatic
          ? template.source
          : template.render(
              {
                Target: target,
                Namespace: context.namespace,
                SelectedItem: item.value,
                SelectKeyParts: item.keyParts,
              },
              context.limits,
            );
        value = op.parseValue(text);
      } catch (err) {
        throw atStage(err, op.field, 'value');
      }
    }
    context.trace?.patchItem(item, path, text, value);
    push(out, { op: op.op, path, value }, op.field, segments);
  }
}

function push(
  out: RenderedOperations,
  operation: JsonPatchOperation,
  field: string,
  segments: readonly string[] | undefined,
): void {
  out.operations.push(operation);
  out.fields.push(field);
  out.segments.push(segments);
}

/**
 * The single item of an operation without a select. `.SelectedItem` is then nil, as KubeMod's
 * interface{} field is: it prints `<no value>`, and `.SelectedItem.x` is an error (nil pointer).
 */
const NO_SELECT: readonly { value: unknown; keyParts: readonly (string | number)[] }[] = [
  { value: null, keyParts: [] },
];

/** KubeMod's rejection text: `<ns>/<name>: "<message>"`, or `<ns>/<name>` when there is none or it fails. */
export function renderRejection(
  rule: CompiledRule,
  target: JsonObject,
  context: RenderContext,
): { text: string; failure: RuleFailure | undefined } {
  if (rule.rejectMessage === undefined) {
    context.trace?.rejection(rule.key, undefined);
    return { text: rule.key, failure: undefined };
  }
  try {
    const message = rule.rejectMessage.render(
      { Target: target, Namespace: context.namespace },
      context.limits,
    );
    const text = `${rule.key}: ${goQuote(message)}`;
    context.trace?.rejection(text, message);
    return { text, failure: undefined };
  } catch (err) {
    const failure = failureOf(
      rule,
      err instanceof KubemodError ? err.atField('spec.rejectMessage') : err,
    );
    context.trace?.rejection(rule.key, undefined);
    return { text: rule.key, failure };
  }
}

/** Longest failure message kept: messages can quote rule or request text, which may be huge. */
export const MAX_FAILURE_MESSAGE = 1024;

export function failureOf(rule: CompiledRule, err: unknown): RuleFailure {
  const known = err instanceof KubemodError;
  const message = known ? err.rawMessage() : err instanceof Error ? err.message : String(err);
  return {
    rule: rule.key,
    namespace: rule.namespace,
    name: rule.name,
    field: known ? err.field : undefined,
    code: known ? err.code : errorCatalog.RULE_EVAL.code,
    failurePolicy: rule.failurePolicy,
    message:
      message.length <= MAX_FAILURE_MESSAGE
        ? message
        : `${message.slice(0, MAX_FAILURE_MESSAGE - 1)}…`,
  };
}
