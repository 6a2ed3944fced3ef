import { AUTHOR_ANNOTATION } from '../../../src/authz/author-record.js';
import { expect } from 'vitest';
import type { RuleFailure } from '../../../src/engine/evaluate.js';
import type { JsonObject, JsonPatchOperation } from '../../../src/engine/json.js';
import type { RuleStore } from '../../../src/engine/store.js';
import type { Metrics } from '../../../src/observability/metrics.js';
import type { RuleFailureContext } from '../../../src/webhook/server.js';
import { admissionReview, startHarness, storeOf, testTls } from '../../unit/webhook/harness.js';
import { sendRequest, type Answer, type Target } from './http.js';
import { measure, type Measurement } from './measure.js';
import { createWorkerDryRunRunner } from '../../../src/webhook/dryrun/dryrun-worker-runner.js';
import { MAX_BLOCKED_MS, MAX_HEAP_GROWTH_MB, PROMPT_MS } from './bounds.js';

export const PATHS = {
  dragnet: '/dragnet-webhook',
  validate: '/validate-api-kubemod-io-v1beta1-modrule',
  dryrun: '/v1/dryrun',
} as const;

/** The namespace of the hostile objects and the tenant's rules. */
export const TENANT = 'team';

/**
 * Rules present in every store: a probe rule for the normal request sent after each hostile one,
 * and cluster-wide rules (kubemod-system) that must keep working whatever a tenant sends.
 */
const STANDING_RULES = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: probe, namespace: probe }
spec:
  type: Patch
  match:
    - select: '$.metadata.name'
      matchValue: probe
  patch:
    - op: add
      path: /metadata/labels/probe
      value: answered
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: guard-label, namespace: kubemod-system }
spec:
  type: Patch
  targetNamespaceRegex: '.*'
  match:
    - select: '$.metadata.labels.guard'
      matchValue: please
  patch:
    - op: add
      path: /metadata/labels/guarded
      value: '"yes"'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: guard-reject, namespace: kubemod-system }
spec:
  type: Reject
  targetNamespaceRegex: '.*'
  match:
    - select: '$.metadata.labels.forbidden'
      matchValue: 'yes'
  rejectMessage: forbidden by the cluster
`;

/** The op the cluster-wide guard-label rule adds to an object labelled guard=please. */
export const GUARD_OP: JsonPatchOperation = {
  op: 'add',
  path: '/metadata/labels/guarded',
  value: 'yes',
};

export interface RecordedFailure {
  readonly failure: RuleFailure;
  readonly context: RuleFailureContext;
}

export interface HostileServer extends Target {
  readonly metrics: Metrics;
  /** Rule failures reported through the webhook's onRuleFailure hook since the last useRules. */
  readonly failures: RecordedFailure[];
  /** Serves the ModRules of `yaml` (give each its namespace) plus the standing rules. */
  useRules(yaml: string): void;
  send(
    method: string,
    path: string,
    body?: string | Buffer,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  /** GET /metrics from the health port (plain HTTP), where the operator serves it. */
  scrape(): Promise<Answer>;
  close(): Promise<void>;
}

/** The in-process HTTPS webhook server (generated certificate, port 0) with swappable rules. */
export async function startHostileServer(): Promise<HostileServer> {
  let store: RuleStore = storeOf(STANDING_RULES);
  const failures: RecordedFailure[] = [];
  const harness = await startHarness({
    store: () => store,
    onRuleFailure: (failure, context) => failures.push({ failure, context }),
    // The server's own dry-run runner: a worker thread, as deployed.
    dryRunRunner: createWorkerDryRunRunner,
  });
  const target: Target = { port: harness.server.port, ca: testTls().ca };
  return {
    ...target,
    metrics: harness.metrics,
    failures,
    useRules(yaml: string): void {
      store = storeOf(`${STANDING_RULES}\n---\n${yaml}`);
      failures.length = 0;
    },
    send: (method, path, body, headers) => sendRequest(target, method, path, body, headers),
    scrape: () => harness.scrape(),
    close: () => harness.close(),
  };
}

export interface AdmissionAnswer {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { code: number; message: string };
  readonly patch?: string;
  readonly warnings?: string[];
}

/** The `response` of an AdmissionReview answer. */
export function admissionAnswer(answer: Answer): AdmissionAnswer {
  return (JSON.parse(answer.text) as { response: AdmissionAnswer }).response;
}

/** The decoded JSON patch of an admission answer ([] when there is none). */
export function patchOf(response: AdmissionAnswer): JsonPatchOperation[] {
  if (response.patch === undefined) return [];
  return JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonPatchOperation[];
}

const OBJECT_SLOT = '{"__hostile_object__":true}';

/**
 * An AdmissionReview v1 CREATE of `objectJson` (a JSON text, so objects too deep for
 * JSON.stringify can be sent) in namespace `team`.
 */
export function reviewJson(
  objectJson: string,
  options: { operation?: string; kind?: string; resource?: string; namespace?: string } = {},
): string {
  const review = admissionReview({
    operation: 'CREATE',
    kind: options.kind ?? 'ConfigMap',
    resource: options.resource ?? 'configmaps',
    namespace: options.namespace ?? TENANT,
    name: 'hostile',
    object: { __hostile_object__: true },
  });
  if (options.operation !== undefined) {
    (review.request as JsonObject).operation = options.operation;
  }
  const text = JSON.stringify(review);
  const slot = text.indexOf(OBJECT_SLOT);
  return text.slice(0, slot) + objectJson + text.slice(slot + OBJECT_SLOT.length);
}

/** A `PUT /v1/dryrun` body with `resourceJson` (a JSON text) and the given ModRules. */
export function dryrunJson(resourceJson: string, modRules: readonly JsonObject[]): string {
  return `{"resourceManifest":${resourceJson},"modRules":${JSON.stringify(modRules)}}`;
}

/** A ModRule manifest (for /v1/dryrun and the validating webhook). */
export function modRule(name: string, spec: JsonObject, namespace = TENANT): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  };
}

/**
 * An AdmissionReview asking the validating webhook about `rule`, as the mutating webhook leaves
 * it: with the harness user recorded as its author (api.kubemod.io/author).
 */
export function validateReviewJson(rule: JsonObject): string {
  const metadata = (rule.metadata ?? {}) as JsonObject;
  const authored: JsonObject = {
    ...rule,
    metadata: { ...metadata, annotations: { [AUTHOR_ANNOTATION]: HARNESS_AUTHOR } },
  };
  return JSON.stringify(
    admissionReview({
      operation: 'CREATE',
      kind: 'ModRule',
      group: 'api.kubemod.io',
      resource: 'modrules',
      namespace: TENANT,
      name: 'hostile',
      object: authored,
    }),
  );
}

/** The author record of the harness's user (kubernetes-admin). */
const HARNESS_AUTHOR =
  '{"username":"kubernetes-admin","groups":["system:masters","system:authenticated"],"extra":{}}';

const PROBE_REVIEW = JSON.stringify(
  admissionReview({
    operation: 'CREATE',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'probe',
    name: 'probe',
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe', namespace: 'probe', labels: { app: 'probe' } },
      data: { a: '1' },
    },
  }),
);

/** Sends a normal admission request and asserts it is answered correctly and promptly. */
export async function expectPromptAnswer(server: HostileServer): Promise<void> {
  const started = performance.now();
  const answer = await server.send('POST', PATHS.dragnet, PROBE_REVIEW);
  const ms = performance.now() - started;
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  expect(patchOf(admissionAnswer(answer))).toEqual([
    { op: 'add', path: '/metadata/labels/probe', value: 'answered' },
  ]);
  expect(ms, 'a normal request after the hostile one took too long').toBeLessThan(PROMPT_MS);
}

/**
 * Sends one hostile request while measuring the event loop, then checks that a normal request is
 * still answered promptly. Returns the measured answer for the case's own assertions.
 */
export async function hostileRequest(
  server: HostileServer,
  method: string,
  path: string,
  body: string | Buffer,
  headers?: Record<string, string>,
): Promise<Measurement<Answer>> {
  const measured = await measure(() => server.send(method, path, body, headers));
  await expectPromptAnswer(server);
  return measured;
}

/** Asserts the event-loop stall and heap growth of a measured hostile request. */
export function expectBounded<T>(measured: Measurement<T>, what = 'the hostile request'): void {
  expect(measured.blockedMs, `${what} blocked the event loop`).toBeLessThan(MAX_BLOCKED_MS);
  expect(measured.heapGrowthMb, `${what} grew the heap (MB)`).toBeLessThan(MAX_HEAP_GROWTH_MB);
}
