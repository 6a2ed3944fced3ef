import { parseArgs } from 'node:util';
import { DEFAULT_CLUSTER_NAMESPACE } from '../engine/rule.js';
import type { WorkLimits } from '../engine/work-limits.js';
import { KubemodError } from '../errors/catalog.js';
import { integerFlag } from './flag-values.js';
import { WORK_FLAG_OPTIONS, workFlagsUsage, workLimitsFlags } from './work-flags.js';

export const AUDIT_USAGE = `Usage: kubemod-ts audit [--kubeconfig <file>] [--context <name>] [-n <namespace>]
                        [--modrule <file|dir> …] [-o table|json|yaml|report]

Lists the live objects of the kinds the dragnet webhook receives, in the scopes of the ModRules,
and evaluates each one as the webhook would evaluate an UPDATE of it, as it is now. Reports the
objects that such an update would patch (with the diff) or reject. Reads only: nothing is written.
Connects like kubectl: --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else in-cluster.

Options:
  --kubeconfig <file>             kubeconfig file
  --context <name>                kubeconfig context (default: the current context)
  -n, --namespace <ns>            audit only namespaced objects in this namespace (default: every
                                  namespace a rule applies to, and cluster-scoped objects)
  --modrule <file|dir>            what-if: audit against the ModRules in these files instead of the
                                  cluster's (repeatable; rules without a namespace go to -n, else
                                  default)
  --cluster-namespace <ns>        namespace of cluster-wide ModRules (default ${DEFAULT_CLUSTER_NAMESPACE})
  --webhook-configuration <name>  MutatingWebhookConfiguration whose dragnet webhook lists the
                                  audited resources (default kubemod-mutating-webhook-configuration;
                                  the bundle's list when it cannot be read)
  -o, --output <format>           table (default), json, yaml, or report: the policy reports the
                                  operator's periodic audit would write (YAML), in the API the
                                  cluster serves (openreports.io, else wgpolicyk8s.io)
  --page-size <n>                 objects per list request (default 500)
  --concurrency <n>               collections listed at once (default 4)
  --no-progress                   no progress line on stderr (it is shown only on a terminal)
${workFlagsUsage(32)}  -h, --help                      show this help

Exit status: 0 every audited object conforms; 1 some object would be patched or rejected;
2 error: bad flags, the cluster or the rules cannot be read, or part of the cluster could not be
read (reported as "not audited") and nothing non-conforming was found.
`;

export type AuditOutput = 'table' | 'json' | 'yaml' | 'report';

export interface AuditConfig {
  readonly kubeconfig: string | undefined;
  readonly context: string | undefined;
  readonly namespace: string | undefined;
  readonly modrules: readonly string[];
  readonly clusterNamespace: string;
  readonly webhookConfiguration: string;
  readonly output: AuditOutput;
  readonly pageSize: number;
  readonly concurrency: number;
  readonly progress: boolean;
  readonly work: WorkLimits;
}

/** Parses `audit` flags (argv without the command name). Throws INPUT_INVALID naming the flag. */
export function parseAuditArgs(argv: readonly string[]): AuditConfig | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        modrule: { type: 'string', multiple: true },
        'cluster-namespace': { type: 'string' },
        'webhook-configuration': { type: 'string' },
        output: { type: 'string', short: 'o', default: 'table' },
        'page-size': { type: 'string' },
        concurrency: { type: 'string' },
        'no-progress': { type: 'boolean' },
        ...WORK_FLAG_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new KubemodError('INPUT_INVALID', err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) return 'help';
  const output = values.output;
  if (output !== 'table' && output !== 'json' && output !== 'yaml' && output !== 'report') {
    throw new KubemodError(
      'INPUT_INVALID',
      `--output must be table, json, yaml or report, got ${JSON.stringify(output)}`,
    );
  }
  if (values.namespace === '')
    throw new KubemodError('INPUT_INVALID', '--namespace must not be empty');
  return {
    kubeconfig: values.kubeconfig,
    context: values.context,
    namespace: values.namespace,
    modrules: values.modrule ?? [],
    clusterNamespace: values['cluster-namespace'] ?? DEFAULT_CLUSTER_NAMESPACE,
    webhookConfiguration:
      values['webhook-configuration'] ?? 'kubemod-mutating-webhook-configuration',
    output,
    pageSize: integerFlag(values['page-size'], '--page-size', 500, 1, 5000),
    concurrency: integerFlag(values.concurrency, '--concurrency', 4, 1, 64),
    progress: values['no-progress'] !== true,
    work: workLimitsFlags(values),
  };
}
