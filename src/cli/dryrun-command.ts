import { parseArgs } from 'node:util';
import { ADMISSION_OPERATIONS, type AdmissionOperation } from '../api/index.js';
import { evaluate, type EvaluationRequest } from '../engine/evaluate.js';
import { explainEvaluation } from '../engine/explain/index.js';
import { RuleStore } from '../engine/store.js';
import { newObjectProblems } from '../engine/object-checks.js';
import { describeError } from '../errors/catalog.js';
import { syntheticRefsFor } from '../webhook/admission/synthetic-refs.js';
import { CliError, wantsColor, type CliIo } from './cli-io.js';
import { readDryrunInputs } from './dryrun-inputs.js';
import { readClusterFiles } from './read-cluster.js';
import { writeDryrunOutput, type DryrunResult } from './dryrun-output.js';
import {
  compileRuleSources,
  readRuleSources,
  requestNamespace,
  type RuleSource,
} from './read-inputs.js';
import { terminalText } from '../engine/terminal-text.js';
import { withRequestNamespace } from '../engine/request-namespace.js';

export const DRYRUN_USAGE = `Usage: kubemod-ts dryrun --modrule <file|dir> [--modrule …] --resource <file|->
                         [--old <file|->] [--refs <file|->] [--cluster <file|dir> …]
                         [--namespace <ns>]
                         [--operation CREATE|UPDATE|DELETE] [--output yaml|json|diff]
                         [--explain] [--color auto|always|never]

Evaluates ModRules against Kubernetes objects offline, exactly as the webhook would.
  --modrule    ModRule file (several YAML documents allowed) or directory; repeatable
  --resource   the object as the API server would receive it (YAML or JSON; - reads stdin).
               Several documents, or a List, give a result per object
  --old        the object before the change: with UPDATE, one for each resource, in the same
               order; with DELETE, the object being deleted (then --resource is not needed)
  --refs       YAML {namespace: <Namespace manifest>, node: <Node manifest>} (both optional),
               injected as the webhook injects syntheticRefs: the namespace into namespaced
               objects, the node into Pods annotated ref.kubemod.io/nodename
  --cluster    manifests (files or directories, repeatable) that rules read with lookup,
               controllerOwner and ownerChain, and ExternalDataAnswers documents for external
               (docs/lookups.md). Without it, every lookup fails as unavailable
  --namespace  the admission request's namespace, as kubectl decides it: by default the
               object's metadata.namespace, else \`default\`; never one for cluster-scoped kinds
               ('' evaluates a custom kind as cluster-scoped). Given, it replaces the object's
               metadata.namespace. Rules without a namespace are loaded into it.
  --operation  CREATE (default), UPDATE or DELETE
  --output     yaml (default: the patched object), json ({"patch","patched","rejections",
               "warnings","audited","diff","failures"}; {"results": [...]} for several objects)
               or diff (unified diff of the YAML; a line saying so when nothing changed)
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
  readonly resource: string | undefined;
  readonly old: string | undefined;
  readonly refs: string | undefined;
  readonly cluster: readonly string[];
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
      resource: { type: 'string', multiple: true },
      old: { type: 'string', multiple: true },
      refs: { type: 'string', multiple: true },
      cluster: { type: 'string', multiple: true },
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
  const resource = single(values.resource, '--resource');
  const old = single(values.old, '--old');
  if (old !== undefined && operation === 'CREATE') {
    throw new CliError(
      '--old: a CREATE request has no old object; give --operation UPDATE or DELETE',
      2,
    );
  }
  if (resource === undefined && !(old !== undefined && operation === 'DELETE')) {
    throw new CliError('--resource: is required', 2);
  }
  return {
    modrules: values.modrule,
    resource,
    old,
    refs: single(values.refs, '--refs'),
    cluster: values.cluster ?? [],
    namespace: values.namespace,
    operation: operation as AdmissionOperation,
    output: values.output,
    explain: values.explain,
    color: values.color,
  };
}

/** The one value of a flag that may be given once; a usage error naming it if given twice. */
function single(values: readonly string[] | undefined, flag: string): string | undefined {
  if (values !== undefined && values.length > 1) {
    throw new CliError(
      `${flag}: given ${String(values.length)} times; give it once (a file may hold several objects)`,
      2,
    );
  }
  return values?.[0];
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
  const inputs = readDryrunInputs(options, io);
  const read = readRuleSources(options.modrules);
  const stores = new RuleStores(read.sources, read.errors);
  const refs = inputs.refs ?? {};
  const cluster = options.cluster.length === 0 ? undefined : readClusterFiles(options.cluster);
  const results = inputs.resources.map((item): DryrunResult => {
    const decided = requestNamespace(item.object, options.namespace, cluster);
    const { namespace } = decided;
    // As the API server hands it to the webhook: metadata.namespace filled in (or cleared).
    const resource = withRequestNamespace(item.object, namespace);
    const request: EvaluationRequest = {
      operation: options.operation,
      namespace,
      object: resource,
      syntheticRefs: syntheticRefsFor(resource, namespace, {
        namespace: () => refs.namespace,
        node: () => refs.node,
      }),
      clock: io.clock,
      cluster,
    };
    const store = stores.forNamespace(namespace ?? 'default');
    const explained = options.explain
      ? explainEvaluation(store, request, {}, decided.assumed ? decided.reason : undefined)
      : undefined;
    const result = explained?.result ?? evaluate(store, request);
    return { resource, namespace, result, explanation: explained?.explanation };
  });
  writeDryrunOutput(
    results,
    { output: options.output, multi: inputs.multi, color: wantsColor(options.color, io) },
    io,
  );
  // What the API server would refuse (stderr: the output's format stays the contract's).
  for (const { resource, result } of results) {
    if (result.patch.length === 0) continue;
    for (const problem of newObjectProblems(resource, result.patched)) {
      io.stderr(
        `kubemod-ts dryrun: warning: the API server would refuse the patched object: ${terminalText(problem)}\n`,
      );
    }
  }
  return 0;
}

/**
 * The ModRules compiled for each request namespace the resources need (rules without a namespace
 * go to it); CliError with every invalid rule, on first use.
 */
class RuleStores {
  private readonly stores = new Map<string, RuleStore>();

  constructor(
    private readonly sources: readonly RuleSource[],
    private readonly readErrors: readonly string[],
  ) {}

  forNamespace(namespace: string): RuleStore {
    let store = this.stores.get(namespace);
    if (store !== undefined) return store;
    const loaded = compileRuleSources(this.sources, namespace);
    const errors = [...this.readErrors, ...loaded.errors];
    if (errors.length > 0) throw new CliError(errors.join(' | '));
    store = new RuleStore();
    for (const rule of loaded.rules) store.put(rule);
    this.stores.set(namespace, store);
    return store;
  }
}

/** The first line of a message (error messages of parsers can span several). */
function oneLine(message: string): string {
  const newline = message.indexOf('\n');
  return newline === -1 ? message : message.slice(0, newline);
}
