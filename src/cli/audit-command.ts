import { KubeConfig } from '@kubernetes/client-node';
import { parseDocuments } from '../engine/load-rules.js';
import { RuleStore } from '../engine/store.js';
import { describeError, isKubemodError } from '../errors/catalog.js';
import { createKubeClient } from '../kube/kube-client.js';
import { kubeConfigConnection } from '../kube/kube-connection.js';
import { compileDocumentsSafely } from '../rules/rule-file.js';
import type { AuditApi } from '../audit/run/audit-api.js';
import type { AuditProgress } from '../audit/run/audit-run.js';
import {
  buildReport,
  exitCodeOf,
  renderJson,
  renderTable,
  renderYaml,
  EXIT_ERROR,
} from '../audit/run/audit-report.js';
import { auditCluster } from '../audit/cluster/audit-session.js';
import {
  readClusterRules,
  readDragnetRules,
  readNamespaces,
  readNodes,
  rulesMayMatchPods,
} from '../audit/cluster/cluster-inputs.js';
import { kubeAuditApi } from '../audit/cluster/kube-audit-api.js';
import { progressLine } from '../audit/run/progress-line.js';
import type { Unreadable } from '../audit/run/scan.js';
import { CliError, type CliIo } from './cli-io.js';
import { AUDIT_USAGE, parseAuditArgs, type AuditConfig } from './audit-config.js';
import { expandRuleFiles, readText } from './read-inputs.js';
import { terminalLines, terminalText } from '../engine/terminal-text.js';
import { OPEN_REPORTS, servedReportApis, type ReportApi } from '../reports/report-api.js';
import {
  createReportCollector,
  type CollectedResults,
  type ReportCollector,
} from '../reports/report-collector.js';
import { buildReports } from '../reports/report-build.js';
import type { KubeClient } from '../kube/kube-client.js';
import { safeYaml } from '../engine/machine-text.js';

export interface AuditIo extends CliIo {
  /** The Kubernetes API (tests); by default built from the kubeconfig. */
  readonly api?: AuditApi | undefined;
  /** The policy report APIs the cluster serves (tests); by default asked of the API server. */
  readonly reportApis?: (() => Promise<readonly ReportApi[]>) | undefined;
  /** Milliseconds, for throttling the progress line; defaults to Date.now. */
  readonly now?: (() => number) | undefined;
}

/** Loads the kubeconfig as kubectl does: the file given, else $KUBECONFIG / ~/.kube/config / in-cluster. */
export function loadAuditKubeConfig(config: AuditConfig): KubeConfig {
  const kc = new KubeConfig();
  if (config.kubeconfig === undefined) kc.loadFromDefault();
  else kc.loadFromFile(config.kubeconfig);
  if (config.context !== undefined) {
    if (kc.getContextObject(config.context) === null)
      throw new CliError(
        `--context: no context named ${JSON.stringify(config.context)} in the kubeconfig`,
        2,
      );
    kc.setCurrentContext(config.context);
  }
  return kc;
}

function rulesFromFiles(config: AuditConfig): RuleStore {
  const store = new RuleStore({ clusterNamespace: config.clusterNamespace });
  const errors: string[] = [];
  for (const file of expandRuleFiles(config.modrules)) {
    const parsed = parseDocuments(readText(file), file);
    const loaded = compileDocumentsSafely(parsed.documents, file, {
      defaultNamespace: config.namespace ?? 'default',
      clusterNamespace: config.clusterNamespace,
    });
    errors.push(...parsed.errors, ...loaded.errors);
    for (const rule of loaded.rules) store.put(rule);
  }
  if (errors.length > 0) throw new CliError(errors.join(' | '), EXIT_ERROR);
  return store;
}

/** `kubemod-ts audit`: see AUDIT_USAGE. Resolves the exit code. */
export async function runAudit(argv: readonly string[], io: AuditIo): Promise<number> {
  let config: AuditConfig;
  try {
    const parsed = parseAuditArgs(argv);
    if (parsed === 'help') {
      io.stdout(AUDIT_USAGE);
      return 0;
    }
    config = parsed;
  } catch (err) {
    io.stderr(
      `kubemod-ts audit: ${terminalLines(describeError(err))}\nRun kubemod-ts audit --help for usage.\n`,
    );
    return EXIT_ERROR;
  }
  try {
    return await audit(config, io);
  } catch (err) {
    const code = isKubemodError(err) ? ` [${err.code}]` : '';
    io.stderr(`kubemod-ts audit: ${terminalText(firstLine(describeError(err)))}${code}\n`);
    return EXIT_ERROR;
  }
}

async function audit(config: AuditConfig, io: AuditIo): Promise<number> {
  let client: KubeClient | undefined;
  let api: AuditApi;
  if (io.api === undefined) {
    client = createKubeClient(kubeConfigConnection(loadAuditKubeConfig(config)));
    api = kubeAuditApi(client);
  } else api = io.api;
  const reportApis =
    io.reportApis ??
    ((): Promise<readonly ReportApi[]> =>
      client === undefined ? Promise.resolve([]) : servedReportApis(client));
  const unreadable: Unreadable[] = [];
  const notes: string[] = [];

  let store: RuleStore;
  if (config.modrules.length > 0) {
    store = rulesFromFiles(config);
    notes.push(`what-if: ModRules from ${config.modrules.join(', ')}, not the cluster's`);
  } else {
    const cluster = await readClusterRules(api, {
      clusterNamespace: config.clusterNamespace,
      onlyNamespace: config.namespace,
      pageSize: config.pageSize,
    });
    if (!cluster.readAny) {
      const first = cluster.unreadable[0];
      throw new CliError(`cannot read the ModRules: ${first?.reason ?? 'unknown error'}`);
    }
    store = cluster.store;
    unreadable.push(...cluster.unreadable);
    for (const invalid of cluster.invalid) notes.push(`ModRule not loaded (invalid): ${invalid}`);
  }

  const dragnet = await readDragnetRules(api, config.webhookConfiguration);
  if (dragnet.note !== undefined) notes.push(dragnet.note);
  const rules = store.all();
  const wanted = [
    ...rules.flatMap((r) => (r.scope.kind === 'namespace' ? [r.scope.namespace] : [])),
    ...(config.namespace === undefined ? [] : [config.namespace]),
  ];
  const ns = await readNamespaces(api, wanted, config.pageSize);
  unreadable.push(...ns.unreadable);
  const nodes = rulesMayMatchPods(rules) ? await readNodes(api, config.pageSize) : undefined;
  unreadable.push(...(nodes?.unreadable ?? []));

  const showProgress = config.progress && io.stderrIsTTY === true;
  const now = io.now ?? Date.now;
  let lastDrawn = 0;
  const draw = (p: AuditProgress): void => {
    const t = now();
    if (t - lastDrawn < 100 && p.tasksDone < p.tasks) return;
    lastDrawn = t;
    io.stderr(`\r${progressLine(p)}\u001b[K`);
  };
  const collector: ReportCollector | undefined =
    config.output === 'report' ? createReportCollector({ store }) : undefined;
  const session = await auditCluster({
    api,
    store,
    refs: {
      namespace: (name) => ns.namespaces?.get(name),
      node: (name) => nodes?.nodes.get(name),
    },
    namespaces: ns.namespaces,
    dragnetRules: dragnet.rules,
    limits: { template: {}, work: config.work },
    onlyNamespace: config.namespace,
    keepFindings: true,
    pageSize: config.pageSize,
    concurrency: config.concurrency,
    onProgress: showProgress ? draw : undefined,
    onEvaluated:
      collector === undefined
        ? undefined
        : (object, target, result, verdict) => collector.observe(object, target, result, verdict),
  });
  if (showProgress) io.stderr('\r\u001b[K');
  const report = buildReport(session.result, {
    unreadable: [...unreadable, ...session.unreadable],
    notes: [...notes, ...session.notes],
  });
  switch (config.output) {
    case 'json':
      io.stdout(renderJson(report));
      break;
    case 'yaml':
      io.stdout(renderYaml(report));
      break;
    case 'table':
      io.stdout(renderTable(report));
      break;
    case 'report': {
      const collected: CollectedResults = collector?.collected() ?? { results: [], dropped: 0 };
      const [reportApi] = await reportApis();
      if (reportApi === undefined)
        io.stderr(
          'kubemod-ts audit: the cluster serves neither openreports.io/v1alpha1 nor wgpolicyk8s.io/v1alpha2: the operator would write no report; showing them as openreports.io/v1alpha1\n',
        );
      if (collected.dropped > 0)
        io.stderr(
          `kubemod-ts audit: ${String(collected.dropped)} result(s) left out (too many to keep)\n`,
        );
      io.stdout(renderReports(reportApi ?? OPEN_REPORTS, collected));
      break;
    }
  }
  return exitCodeOf(report);
}

/** The reports a set of results makes, as a multi-document YAML stream (`kubectl apply -f -` ready). */
function renderReports(reportApi: ReportApi, collected: CollectedResults): string {
  return buildReports(reportApi, collected.results, undefined, collected.partial)
    .map((report) => `---\n${safeYaml(report.manifest)}`)
    .join('');
}

function firstLine(message: string): string {
  const newline = message.indexOf('\n');
  return newline === -1 ? message : message.slice(0, newline);
}
