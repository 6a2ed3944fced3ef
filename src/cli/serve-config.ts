import { parseArgs } from 'node:util';
import { DEFAULT_CLUSTER_NAMESPACE } from '../engine/rule.js';
import {
  helperThreadNiceFlag,
  helperThreadNiceUsage,
  integerFlag,
  logLevelFlag,
} from './flag-values.js';
import { KubemodError } from '../errors/catalog.js';
import { LOG_LEVELS, type LogLevel } from '../observability/logger.js';
import { DEFAULT_WEBHOOK_LIMITS } from '../webhook/dependencies.js';
import type { WorkLimits } from '../engine/work-limits.js';
import { WORK_FLAG_OPTIONS, workFlagsUsage, workLimitsFlags } from './work-flags.js';

/** Everything `kubemod-ts serve` is configured with, read once from flags and environment. */
export interface ServeConfig {
  readonly rulesDir: string;
  readonly host: string;
  readonly port: number;
  /**
   * Plain-HTTP port of /healthz, /readyz and /metrics (--health-port; 0 picks a free one), or
   * none. Metrics are never served on the HTTPS port, which every webhook client can reach.
   */
  readonly healthPort: number | undefined;
  /** Directory holding tls.crt and tls.key; a self-signed certificate is generated when absent. */
  readonly certDir: string | undefined;
  /** YAML file or directory of Namespace and Node manifests used as syntheticRefs. */
  readonly refsPath: string | undefined;
  /** Files or directories of manifests (and ExternalDataAnswers) that lookups read (--cluster). */
  readonly clusterPaths: readonly string[];
  readonly clusterNamespace: string;
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  readonly deadlineMs: number;
  readonly templateMaxOutputBytes: number | undefined;
  /** Work budget of one evaluation (--rule-work-units, --rule-time-ms, …). */
  readonly work: WorkLimits;
  readonly debounceMs: number;
  readonly shutdownGraceMs: number;
  /** Serve the playground page at `/` (off with --no-ui). */
  readonly ui: boolean;
  /** Nice value of the helper threads (--helper-thread-nice; 0 leaves them alone). */
  readonly helperThreadNice: number;
}

export type ServeArgs =
  { readonly kind: 'help' } | { readonly kind: 'config'; readonly config: ServeConfig };

export const SERVE_USAGE = `Usage: kubemod-ts serve --rules <dir> [options]

Serves the KubeMod webhooks and the /v1/dryrun API over HTTPS with the ModRules of a directory
(reloaded when files change), without a cluster, and the playground page at / (a browser editor
for ModRules that shows each change's patch, diff, rejections and explanation).

Options:
  --rules <dir>              directory of ModRule YAML/JSON files (required; searched recursively)
  --port <n>                 HTTPS port (default 8443; 0 picks a free port)
  --host <addr>              address to listen on (default 127.0.0.1). Anyone who can reach it
                             reads the --rules files (comments included, /server-rules.json) and,
                             through PUT /v1/dryrun, the --refs manifests: 0.0.0.0 shares them
  --health-port <n>          plain-HTTP port of /healthz, /readyz and /metrics (default: none, so
                             no metrics; 0 picks a free port). /metrics is never on the HTTPS port
  --cert-dir <dir>           directory with tls.crt and tls.key (default: a generated self-signed certificate)
  --refs <file|dir>          Namespace and Node manifests to use as syntheticRefs
  --cluster <file|dir>       manifests rules read with lookup and the owner helpers, and
                             ExternalDataAnswers for external (repeatable; docs/lookups.md)
  --cluster-namespace <ns>   namespace of cluster-wide ModRules (default ${DEFAULT_CLUSTER_NAMESPACE})
  --log-level <level>        ${LOG_LEVELS.join('|')} (default info, or $KUBEMOD_LOG_LEVEL)
  --body-limit <bytes>       largest request body (default ${String(DEFAULT_WEBHOOK_LIMITS.bodyLimitBytes)})
  --deadline-ms <ms>         a request not evaluated within this is refused if a Fail rule applies
                             to it, else allowed unevaluated (default ${String(DEFAULT_WEBHOOK_LIMITS.deadlineMs)})
  --template-max-output <n>  per-template output limit in characters (default: the engine's)
${workFlagsUsage(27)}  --debounce-ms <ms>         quiet period before reloading changed rules (default 200)
  --shutdown-grace-ms <ms>   time in-flight requests get on SIGTERM/SIGINT (default 10000)
  --no-ui                    do not serve the playground page
${helperThreadNiceUsage(27)}  -h, --help                 show this help
`;

/** Parses `serve` flags (argv without the command name). Throws INPUT_INVALID naming the flag. */
export function parseServeArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        rules: { type: 'string' },
        port: { type: 'string' },
        'health-port': { type: 'string' },
        host: { type: 'string' },
        'cert-dir': { type: 'string' },
        refs: { type: 'string' },
        cluster: { type: 'string', multiple: true },
        'cluster-namespace': { type: 'string' },
        'log-level': { type: 'string' },
        'body-limit': { type: 'string' },
        'deadline-ms': { type: 'string' },
        'template-max-output': { type: 'string' },
        ...WORK_FLAG_OPTIONS,
        'debounce-ms': { type: 'string' },
        'shutdown-grace-ms': { type: 'string' },
        'no-ui': { type: 'boolean' },
        'helper-thread-nice': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new KubemodError('INPUT_INVALID', err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) return { kind: 'help' };
  const rulesDir = values.rules;
  if (rulesDir === undefined || rulesDir === '')
    throw new KubemodError('INPUT_INVALID', '--rules <dir> is required');
  const logLevel = logLevelFlag(values['log-level'], env);
  const templateMax = values['template-max-output'];
  return {
    kind: 'config',
    config: {
      rulesDir,
      host: values.host ?? '127.0.0.1',
      port: integerFlag(values.port, '--port', 8443, 0, 65535),
      healthPort:
        values['health-port'] === undefined
          ? undefined
          : integerFlag(values['health-port'], '--health-port', 0, 0, 65535),
      certDir: values['cert-dir'],
      refsPath: values.refs,
      clusterPaths: values.cluster ?? [],
      clusterNamespace: values['cluster-namespace'] ?? DEFAULT_CLUSTER_NAMESPACE,
      logLevel,
      bodyLimitBytes: integerFlag(
        values['body-limit'],
        '--body-limit',
        DEFAULT_WEBHOOK_LIMITS.bodyLimitBytes,
        1,
        2 ** 31,
      ),
      deadlineMs: integerFlag(
        values['deadline-ms'],
        '--deadline-ms',
        DEFAULT_WEBHOOK_LIMITS.deadlineMs,
        1,
        30_000,
      ),
      templateMaxOutputBytes:
        templateMax === undefined
          ? undefined
          : integerFlag(templateMax, '--template-max-output', 0, 1, 2 ** 31),
      work: workLimitsFlags(values),
      debounceMs: integerFlag(values['debounce-ms'], '--debounce-ms', 200, 0, 60_000),
      shutdownGraceMs: integerFlag(
        values['shutdown-grace-ms'],
        '--shutdown-grace-ms',
        10_000,
        0,
        600_000,
      ),
      ui: values['no-ui'] !== true,
      helperThreadNice: helperThreadNiceFlag(values['helper-thread-nice']),
    },
  };
}
