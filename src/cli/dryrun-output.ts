import type { EvaluationResult } from '../engine/evaluate.js';
import { renderExplainTree, type ExplainDocument } from '../engine/explain/index.js';
import { isJsonObject, type JsonObject } from '../engine/json.js';
import { terminalLines, terminalText } from '../engine/terminal-text.js';
import { dryRunDiff } from '../webhook/dryrun/dryrun-diff.js';
import type { CliIo } from './cli-io.js';
import { safeJson, safeYaml } from '../engine/machine-text.js';

/** One resource of `dryrun`, evaluated. */
export interface DryrunResult {
  readonly resource: JsonObject;
  /** The request namespace it was evaluated in (undefined: cluster-scoped). */
  readonly namespace: string | undefined;
  readonly result: EvaluationResult;
  readonly explanation: ExplainDocument | undefined;
}

export interface DryrunOutputOptions {
  readonly output: 'yaml' | 'json' | 'diff';
  /** True when the input held several resources: a result per resource, each labelled. */
  readonly multi: boolean;
  readonly color: boolean;
}

/**
 * Writes the results: stdout in the chosen format (one resource as before; several as a YAML
 * stream, `{"results": [...]}` or a diff per resource), and on stderr the rules that failed and
 * the rejections, each naming its resource when there are several.
 */
export function writeDryrunOutput(
  results: readonly DryrunResult[],
  options: DryrunOutputOptions,
  io: CliIo,
): void {
  for (const one of results) {
    const where = options.multi ? `${label(one.resource)}: ` : '';
    for (const failure of one.result.failures) {
      const what =
        failure.failurePolicy === 'Fail'
          ? 'failed; its failure policy is Fail, so the request is refused'
          : 'failed and was skipped';
      const text = `${where}ModRule ${failure.rule} ${what}: ${failure.field ?? 'spec'}: ${failure.message}`;
      io.stderr(`warning: ${terminalText(text)}\n`);
    }
  }
  if (options.output === 'json') {
    const answers = results.map((one) => jsonAnswer(one, options.multi));
    io.stdout(`${safeJson(options.multi ? { results: answers } : answers[0])}\n`);
  } else {
    results.forEach((one, i) => {
      if (one.explanation !== undefined) {
        if (options.multi) io.stdout(`${i > 0 ? '\n' : ''}# ${terminalText(heading(one))}\n`);
        io.stdout(renderExplainTree(one.explanation, { color: options.color }));
      } else if (options.output === 'diff') {
        io.stdout(diffText(one));
      } else {
        io.stdout(`${options.multi && i > 0 ? '---\n' : ''}${safeYaml(one.result.patched)}`);
      }
    });
  }
  for (const one of results) {
    const where = options.multi ? `${label(one.resource)}: ` : '';
    // As kubectl prints the webhook's warnings; Audit rules are silent in the cluster, not here.
    for (const warning of one.result.warnings) {
      io.stderr(`Warning: ${terminalText(where + warning)}\n`);
    }
    for (const audit of one.result.audited) io.stderr(`audit: ${terminalText(where + audit)}\n`);
    if (one.result.rejections.length === 0) continue;
    io.stderr(
      `rejected: ${terminalText(where)}operation rejected by the following ModRule(s): ${terminalText(one.result.rejections.join(','))}\n`,
    );
  }
}

function jsonAnswer(one: DryrunResult, multi: boolean): Record<string, unknown> {
  const { result } = one;
  const metadata = isJsonObject(one.resource.metadata) ? one.resource.metadata : {};
  return {
    ...(multi
      ? {
          kind: one.resource.kind,
          ...(typeof metadata.name === 'string' ? { name: metadata.name } : {}),
          ...(one.namespace === undefined ? {} : { namespace: one.namespace }),
        }
      : {}),
    patch: result.patch,
    patched: result.patched,
    rejections: result.rejections,
    warnings: result.warnings,
    audited: result.audited,
    diff: dryRunDiff(one.resource, result.patched),
    failures: result.failures.map((f) => ({
      rule: f.rule,
      field: f.field ?? 'spec',
      code: f.code,
      message: f.message,
      failurePolicy: f.failurePolicy,
    })),
    ...(one.explanation === undefined ? {} : { explain: one.explanation }),
  };
}

/** The unified diff, or a line saying that the rules changed nothing. */
function diffText(one: DryrunResult): string {
  // Named `<kind>/<name>` by dryRunDiff, as in the answers of `PUT /v1/dryrun`.
  const diff = dryRunDiff(one.resource, one.result.patched);
  if (diff !== '') return terminalLines(diff);
  return `${terminalText(`No changes: no ModRule changed ${label(one.resource)}.`)}\n`;
}

/** `Kind/name`, or the kind alone for an object without a name. */
function label(resource: JsonObject): string {
  const kind = typeof resource.kind === 'string' ? resource.kind : 'object';
  const metadata = isJsonObject(resource.metadata) ? resource.metadata : {};
  return typeof metadata.name === 'string' ? `${kind}/${metadata.name}` : kind;
}

function heading(one: DryrunResult): string {
  return one.namespace === undefined
    ? label(one.resource)
    : `${label(one.resource)} (namespace ${one.namespace})`;
}
