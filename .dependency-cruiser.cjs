// @ts-check
/**
 * The import rules of kubemod-ts (README, "Architecture"), checked by `npm run lint:layers`
 * (scripts/check-layers.ts, which runs dependency-cruiser's API: its CLI wants Node 22 or later,
 * the project supports Node 20). On Node 22+ its CLI takes this file too:
 * `npx depcruise --config .dependency-cruiser.cjs src test bench scripts`.
 *
 * Every rule is an error: a violation fails lint. Type-only imports count for cycles (a cycle of
 * types is still a knot in the design) and for layers, except where a rule says otherwise.
 * Tests (`*.test.ts`, `*.test-support.ts`, test/) may import across layers; they may not make
 * cycles.
 */

/** Tests and their helpers, which may reach into any layer. */
const TESTS = '(\\.test\\.ts|\\.test-support\\.ts)$|^test/';

/** Packages and Node modules that do I/O, speak HTTP or Kubernetes, or export metrics and logs. */
const IO_PACKAGES =
  '^node_modules/(express|body-parser|@kubernetes/client-node|prom-client|pino|node-forge)/';
const IO_CORE_MODULES =
  '^(node:)?(http|https|http2|net|tls|dgram|dns|child_process|cluster|worker_threads|fs|fs/promises|readline|v8)$';

/**
 * The folders of src/, lowest first (README, "Architecture"). A folder imports only the folders
 * before it: no folder pair depends both ways, and a concept two folders share lives in the lower
 * one (or the lower one owns the interface the higher one implements). A new folder takes its
 * place here before it may import anything (rule `layer-order-names-every-folder`). Names are
 * used as regular expressions: letters, digits, `-` and `/` only.
 */
const LAYER_ORDER = [
  'errors',
  'api',
  'engine',
  'json-stream',
  'observability',
  'external-data',
  'rules',
  'kube',
  'authz',
  'webhook',
  'playground',
  'audit/run',
  'audit/apply-existing',
  'reports',
  'tls',
  'audit/cluster',
  'controller',
  'cli',
];

/**
 * The lowest folders have an allow-list rule of their own below (what each may import, all of it
 * earlier in LAYER_ORDER), and `only-the-cli-imports-the-cli` guards the top: the order rules
 * cover the folders in between (an import from one of them may also break a rule of its own).
 */
const OWN_ALLOW_LIST = ['errors', 'api', 'engine', 'json-stream', 'observability'];

/** One rule per folder: it does not import the folders after it in LAYER_ORDER. */
const LAYER_ORDER_RULES = LAYER_ORDER.flatMap((folder, i) => {
  const above = LAYER_ORDER.slice(i + 1).filter((f) => f !== 'cli');
  if (OWN_ALLOW_LIST.includes(folder) || above.length === 0) return [];
  return [
    {
      name: 'layer-order',
      severity: /** @type {const} */ ('error'),
      comment:
        `src/${folder} is below ${above.join(', ')} (LAYER_ORDER): it does not import them; ` +
        'move the shared concept down, or let the lower folder own the interface.',
      from: { path: `^src/${folder}/`, pathNot: TESTS },
      to: { path: `^src/(${above.join('|')})/` },
    },
  ];
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...LAYER_ORDER_RULES,
    {
      name: 'layer-order-names-every-folder',
      severity: 'error',
      comment:
        'Every folder of src/ that imports another has its place in LAYER_ORDER (files sit in a ' +
        'folder of the order, not beside its subfolders).',
      from: { path: '^src/', pathNot: `^src/(${LAYER_ORDER.join('|')})/|${TESTS}` },
      to: { path: '^src/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle, through types or not: put a shared type with its owner (the lower layer).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'errors-is-a-leaf',
      severity: 'error',
      comment: 'src/errors (the error catalog) is used by every layer and imports none of them.',
      from: { path: '^src/errors/', pathNot: TESTS },
      to: { path: '^src/', pathNot: '^src/errors/' },
    },
    {
      name: 'api-imports-only-errors',
      severity: 'error',
      comment:
        'src/api (ModRule types, defaulting, structural validation) imports nothing from the engine ' +
        'or above: the engine depends on the API types, not the other way round.',
      from: { path: '^src/api/', pathNot: TESTS },
      to: { path: '^src/', pathNot: '^src/(api|errors)/' },
    },
    {
      name: 'api-does-no-io',
      severity: 'error',
      comment: 'src/api is pure: no network, file, Kubernetes, metrics or logging modules.',
      from: { path: '^src/api/', pathNot: TESTS },
      to: { path: [IO_PACKAGES, IO_CORE_MODULES] },
    },
    {
      name: 'engine-imports-only-api-and-errors',
      severity: 'error',
      comment:
        'src/engine (select language, templates, patcher, store, evaluation) is pure: besides ' +
        'itself it uses only the API types and the error catalog; it knows nothing of HTTP, ' +
        'Kubernetes, metrics, the webhook, the controller, the rule sources or the CLI.',
      from: { path: '^src/engine/', pathNot: TESTS },
      to: { path: '^src/', pathNot: '^src/(engine|api|errors)/' },
    },
    {
      name: 'engine-does-no-io',
      severity: 'error',
      comment: 'src/engine does no I/O: no network, file, Kubernetes, metrics or logging modules.',
      from: { path: '^src/engine/', pathNot: TESTS },
      to: { path: [IO_PACKAGES, IO_CORE_MODULES] },
    },
    {
      name: 'json-stream-is-a-leaf',
      severity: 'error',
      comment:
        'src/json-stream (the resumable JSON parser) is usable from any layer: it imports only ' +
        "the error catalog and the engine's JSON value types.",
      from: { path: '^src/json-stream/', pathNot: TESTS },
      to: { path: '^src/', pathNot: '^src/(json-stream/|errors/|engine/json\\.ts$)' },
    },
    {
      name: 'observability-imports-only-errors',
      severity: 'error',
      comment:
        'src/observability (logger, metrics, event-loop lag) is used by the layers above it.',
      from: { path: '^src/observability/', pathNot: TESTS },
      to: { path: '^src/', pathNot: '^src/(observability|errors)/' },
    },
    {
      name: 'rule-sources-know-no-server',
      severity: 'error',
      comment:
        'src/rules (ModRule files and the directory source) feeds the store; it does not know ' +
        'the webhook, the controller, audit, TLS or the CLI that use it.',
      from: { path: '^src/rules/', pathNot: TESTS },
      to: { path: '^src/(webhook|controller|audit|reports|tls|cli)/' },
    },
    {
      name: 'external-data-knows-no-server',
      comment:
        'src/external-data (ExternalDataProvider objects, their HTTPS client, the answer cache and ' +
        'the external half of the ClusterView) is handed to the webhook by the operator: it does ' +
        'not import the webhook, the controller, audit, reports, TLS management, rule sources or ' +
        'the CLI, nor a Kubernetes client (the operator injects the Secret reader).',
      severity: 'error',
      from: { path: '^src/external-data/', pathNot: TESTS },
      to: {
        path: [
          '^src/(webhook|controller|audit|reports|tls|rules|cli)/',
          '^node_modules/@kubernetes/client-node/',
        ],
      },
    },
    {
      name: 'webhook-knows-no-controller-or-cli',
      severity: 'error',
      comment:
        'src/webhook answers from memory: it does not import the controller (informers, the ' +
        'Kubernetes client), TLS management or the CLI; they hand it what it needs.',
      from: { path: '^src/webhook/', pathNot: TESTS },
      to: { path: '^src/(controller|tls|cli)/' },
    },
    {
      name: 'webhook-does-not-call-kubernetes',
      severity: 'error',
      comment: 'No API call on the request path: the webhook does not import a Kubernetes client.',
      from: { path: '^src/webhook/', pathNot: TESTS },
      to: { path: '^node_modules/@kubernetes/client-node/' },
    },
    {
      name: 'only-the-cli-imports-the-cli',
      severity: 'error',
      comment: 'src/cli is the top layer (commands); shared code lives in the layer it belongs to.',
      from: { path: '^src/', pathNot: `^src/cli/|${TESTS}` },
      to: { path: '^src/cli/' },
    },
    {
      name: 'src-does-not-import-tests',
      severity: 'error',
      comment: 'Shipped code does not import tests, test support, benchmarks or scripts.',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: `${TESTS}|^(bench|scripts)/` },
    },
    {
      name: 'src-uses-production-dependencies',
      severity: 'error',
      comment:
        'What src/ imports at run time is in package.json "dependencies" (the production image ' +
        'installs only those). The playground page is bundled at build time and is exempt.',
      from: { path: '^src/', pathNot: `^src/playground/|${TESTS}` },
      to: {
        dependencyTypes: ['npm-dev', 'npm-no-pkg', 'npm-unknown'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      comment:
        'Every import resolves to a file or an installed package (virtual: modules are made by ' +
        'the playground build, scripts/playground).',
      from: {},
      to: { couldNotResolve: true, pathNot: '^virtual:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage)/' },
    tsPreCompilationDeps: true,
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
