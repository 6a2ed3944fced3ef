import { parseArgs } from 'node:util';
import { ADMISSION_OPERATIONS, type AdmissionOperation } from '../api/index.js';
import { evaluate, type EvaluationRequest } from '../engine/evaluate.js';
import { explainEvaluation, renderExplainTree } from '../engine/explain/index.js';
import { RuleStore } from '../engine/store.js';
import { describeError } from '../errors/catalog.js';
import { dryRunDiff } from '../webhook/dryrun-diff.js';
import { CliError, wantsColor, type CliIo } from './cli-io.js';
import {
  compileRuleSources,
  readResource,
  readRuleSources,
  requestNamespace,
} from './read-inputs.js';
import { safeJson, safeYaml } from './machine-text.js';
import { terminalLines, terminalText } from '../engine/terminal-text.js';

export const DRYRUN_USAGE = `Usage: kubemod-ts dryrun --modrule <file|dir> [--modrule …] --resource <file>
                         [--namespace <ns>] [--operation CREATE|UPDATE|DELETE] [--output yaml|json|diff]
                         [--explain] [--color auto|always|never]

Evaluates ModRules against one Kubernetes object offline, exactly as the webhook would.
  --modrule    ModRule file (several YAML documents allowed) or directory; repeatable
  --resource   the object as the API server would receive it (YAML or JSON)
  --namespace  the admission request's namespace (default: the object's metadata.namespace;
               none for cluster-scoped objects). Rules without a namespace are loaded into it.
  --operation  CREATE (default), UPDATE or DELETE
  --output     yaml (default: the patched object), json ({"patch","patched","rejections",
               "warnings","audited","diff","failures"}) or diff (unified diff of the YAML)
  --explain    print why each rule did or did not apply, as a tree, instead of the yaml or diff
               output: every rule with its match items (the values each select produced and
               what they were compared with), rendered patch operations, the tier and step it
               was applied at, rejections, failures (field and code), and the rules skipped by
               namespace, kind or operation. With --output json, the answer gains an "explain"
               member instead (schema: docs/explain.md). The result is the same as without it.
  --color      colour the tree: auto (default: on a terminal, unless NO_COLOR is set), always, never
Exit status: 0 when evaluation ran, 1 when an input is unreadable or a ModRule is invalid, 2 on
usage errors. Rejections and rule failures (rules skipped, e.g. over their work limit) are
reported on stderr.
`;

type OutputFormat = 'yaml' | 'json' | 'diff';
type ColorMode = 'auto' | 'always' | 'never';

interface DryrunOptions {
  readonly modrules: readonly string[];
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly operation: AdmissionOperation;
  readonly output: OutputFormat;
  readonly explain: boolean;
  readonly color: ColorMode;
}

function parseOptions(argv: readonly string[]): DryrunOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      modrule: { type: 'string', multiple: true },
      resource: { type: 'string' },
      namespace: { type: 'string' },
      operation: { type: 'string', default: 'CREATE' },
      output: { type: 'string', short: 'o', default: 'yaml' },
      explain: { type: 'boolean', default: false },
      color: { type: 'string', default: 'auto' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) return 'help';
  const operation = values.operation.toUpperCase();
  if (!(ADMISSION_OPERATIONS as readonly string[]).includes(operation)) {
    throw new CliError(
      `--operation: must be one of ${ADMISSION_OPERATIONS.join(', ')}, got ${values.operation}`,
      2,
    );
  }
  if (values.output !== 'yaml' && values.output !== 'json' && values.output !== 'diff') {
    throw new CliError(`--output: must be yaml, json or diff, got ${values.output}`, 2);
  }
  if (values.color !== 'auto' && values.color !== 'always' && values.color !== 'never') {
    throw new CliError(`--color: must be auto, always or never, got ${values.color}`, 2);
  }
  if (values.modrule === undefined || values.modrule.length === 0)
    throw new CliError('--modrule: is required', 2);
  if (values.resource === undefined) throw new CliError('--resource: is required', 2);
  return {
    modrules: values.modrule,
    resource: values.resource,
    namespace: values.namespace,
    operation: operation as AdmissionOperation,
    output: values.output,
    explain: values.explain,
    color: values.color,
  };
}

/** `kubemod-ts dryrun`: see DRYRUN_USAGE. Returns the exit code. */
export function runDryrun(argv: readonly string[], io: CliIo): number {
  let options: DryrunOptions | 'help';
  try {
    options = parseOptions(argv);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(
      `kubemod-ts dryrun: ${terminalText(message)}\n${err instanceof CliError ? '' : DRYRUN_USAGE}`,
    );
    return err instanceof CliError ? err.exitCode : 2;
  }
  if (options === 'help') {
    io.stdout(DRYRUN_USAGE);
    return 0;
  }
  try {
    return dryrun(options, io);
  } catch (err) {
    // Whatever fails (an input too large or too deep to evaluate or print), one line, never a trace.
    io.stderr(`kubemod-ts dryrun: ${terminalText(oneLine(describeError(err)))}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

function dryrun(options: DryrunOptions, io: CliIo): number {
  const resource = readResource(options.resource);
  const namespace = requestNamespace(resource, options.namespace);
  const read = readRuleSources(options.modrules);
  const loaded = compileRuleSources(read.sources, namespace ?? 'default');
  const store = new RuleStore();
  for (const rule of loaded.rules) store.put(rule);
  const errors = [...read.errors, ...loaded.errors];
  if (errors.length > 0) throw new CliError(errors.join(' | '));

  const request: EvaluationRequest = {
    operation: options.operation,
    namespace,
    object: resource,
    clock: io.clock,
  };
  const explained = options.explain ? explainEvaluation(store, request) : undefined;
  const result = explained?.result ?? evaluate(store, request);
  for (const failure of result.failures) {
    const what =
      failure.failurePolicy === 'Fail'
        ? 'failed; its failure policy is Fail, so the request is refused'
        : 'failed and was skipped';
    const text = `ModRule ${failure.rule} ${what}: ${failure.field ?? 'spec'}: ${failure.message}`;
    io.stderr(`warning: ${terminalText(text)}\n`);
  }
  const diffName = typeof resource.kind === 'string' ? resource.kind : 'object';
  switch (options.output) {
    case 'json': {
      const failures = result.failures.map((f) => ({
        rule: f.rule,
        field: f.field ?? 'spec',
        code: f.code,
        message: f.message,
        failurePolicy: f.failurePolicy,
      }));
      const diff = dryRunDiff(resource, result.patched, { name: diffName });
      const answer = {
        patch: result.patch,
        patched: result.patched,
        rejections: result.rejections,
        warnings: result.warnings,
        audited: result.audited,
        diff,
        failures,
        ...(explained === undefined ? {} : { explain: explained.explanation }),
      };
      io.stdout(`${safeJson(answer)}\n`);
      break;
    }
    case 'diff':
    case 'yaml':
      if (explained !== undefined) {
        io.stdout(
          renderExplainTree(explained.explanation, { color: wantsColor(options.color, io) }),
        );
      } else if (options.output === 'diff') {
        io.stdout(terminalLines(dryRunDiff(resource, result.patched, { name: diffName })));
      } else {
        io.stdout(safeYaml(result.patched));
      }
      break;
  }
  // As kubectl prints the webhook's warnings; Audit rules are silent in the cluster, not here.
  for (const warning of result.warnings) io.stderr(`Warning: ${terminalText(warning)}\n`);
  for (const audit of result.audited) io.stderr(`audit: ${terminalText(audit)}\n`);
  if (result.rejections.length > 0) {
    io.stderr(
      `rejected: operation rejected by the following ModRule(s): ${terminalText(result.rejections.join(','))}\n`,
    );
  }
  return 0;
}

/** The first line of a message (error messages of parsers can span several). */
function oneLine(message: string): string {
  const newline = message.indexOf('\n');
  return newline === -1 ? message : message.slice(0, newline);
}
