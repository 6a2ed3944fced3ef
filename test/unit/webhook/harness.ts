import { request } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { loadModRules } from '../../../src/engine/load-rules.js';
import { RuleStore } from '../../../src/engine/store.js';
import type { JsonObject, JsonPatchOperation, JsonValue } from '../../../src/engine/json.js';
import { startHealthServer, type HealthServer } from '../../../src/controller/health-server.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import { createCertificateAuthority, issueCertificate } from '../../../src/tls/certificates.js';
import {
  DEFAULT_WEBHOOK_LIMITS,
  startWebhookServer,
  type StartedWebhookServer,
  type TlsMaterial,
  type WebhookDependencies,
  type WebhookServerOptions,
} from '../../../src/webhook/server.js';
import { inProcessDryRunRunner } from '../../../src/webhook/dryrun/dryrun-runner.js';

export interface TestTls {
  readonly ca: string;
  readonly tls: TlsMaterial;
}

let cached: TestTls | undefined;

/** A CA and a 127.0.0.1 serving certificate, generated once per test file. */
export function testTls(): TestTls {
  if (cached === undefined) {
    const ca = createCertificateAuthority({ commonName: 'webhook test CA' });
    const leaf = issueCertificate(ca, {
      commonName: 'webhook',
      ipAddresses: ['127.0.0.1'],
      dnsNames: ['localhost'],
    });
    cached = { ca: ca.certPem, tls: { cert: leaf.certPem, key: leaf.keyPem } };
  }
  return cached;
}

/** A rule of namespace `team` that labels every ConfigMap `seen: yes`. */
export const SEEN_LABEL_RULE = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: label, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/seen
      value: '"yes"'
`;

/** A TLS connection to the test server that finished its handshake (and sends nothing yet). */
export async function tlsSocket(port: number): Promise<TLSSocket> {
  const socket = tlsConnect({ host: '127.0.0.1', port, ca: testTls().ca, servername: 'localhost' });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

export function storeOf(yaml: string): RuleStore {
  const loaded = loadModRules(yaml, 'test', {
    defaultNamespace: 'default',
    clusterNamespace: 'kubemod-system',
  });
  if (loaded.errors.length > 0) throw new Error(loaded.errors.join('\n'));
  const store = new RuleStore({ clusterNamespace: 'kubemod-system' });
  for (const rule of loaded.rules) store.put(rule);
  return store;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json<T = JsonObject>(): T;
}

export function send(
  port: number,
  ca: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, ca, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface Harness {
  readonly server: StartedWebhookServer;
  readonly metrics: Metrics;
  /** Parsed JSON log lines. */
  readonly logs: JsonObject[];
  post(path: string, body: JsonValue | string): Promise<HttpAnswer>;
  /**
   * GET /metrics where the operator serves it: a plain-HTTP health server on the harness's
   * registry (started on first use, closed with the harness), never the webhook's HTTPS port.
   */
  scrape(): Promise<HttpAnswer>;
  close(): Promise<void>;
}

/** GET `url` over plain HTTP. */
export async function httpGet(url: string): Promise<HttpAnswer> {
  const res = await fetch(url);
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

export async function startHarness(
  overrides: Partial<WebhookDependencies> = {},
  serverOptions: Partial<Omit<WebhookServerOptions, 'tls'>> = {},
): Promise<Harness> {
  const { ca, tls } = testTls();
  const logs: JsonObject[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logs.push(JSON.parse(line) as JsonObject) },
  });
  const metrics = createMetrics();
  const store = new RuleStore({ clusterNamespace: 'kubemod-system' });
  const deps: WebhookDependencies = {
    store: () => store,
    refs: { namespace: () => undefined, node: () => undefined },
    logger,
    metrics,
    ready: () => true,
    limits: DEFAULT_WEBHOOK_LIMITS,
    clusterNamespace: 'kubemod-system',
    // Dry runs in process: a worker thread takes a second or more to start from the TypeScript
    // sources, once per harness. The worker path has its own tests (dryrun-worker.test.ts) and
    // serves the hostile suite (test/hostile/support/server.ts).
    dryRunRunner: inProcessDryRunRunner,
    ...overrides,
  };
  const server = await startWebhookServer(deps, {
    host: '127.0.0.1',
    port: 0,
    tls,
    shutdownGraceMs: 2000,
    ...serverOptions,
  });
  let health: Promise<HealthServer> | undefined;
  return {
    server,
    metrics,
    logs,
    post: (path, body) =>
      send(server.port, ca, 'POST', path, typeof body === 'string' ? body : JSON.stringify(body)),
    scrape: async () => {
      // No page cache: tests scrape right after the requests they count.
      health ??= startHealthServer({
        host: '127.0.0.1',
        port: 0,
        ready: deps.ready,
        metrics,
        metricsCacheMs: 0,
      });
      return httpGet(`${(await health).url}/metrics`);
    },
    close: async () => {
      await Promise.all([server.close(), health?.then((h) => h.close())]);
    },
  };
}

export interface ReviewOptions {
  readonly apiVersion?: 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';
  readonly uid?: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly kind: string;
  readonly group?: string;
  readonly resource: string;
  readonly subResource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly object?: JsonObject | null;
  readonly oldObject?: JsonObject | null;
}

/** A real-looking AdmissionReview request body. */
export function admissionReview(options: ReviewOptions): JsonObject {
  const group = options.group ?? '';
  const request: JsonObject = {
    uid: options.uid ?? 'uid-1',
    kind: { group, version: 'v1', kind: options.kind },
    resource: { group, version: 'v1', resource: options.resource },
    requestKind: { group, version: 'v1', kind: options.kind },
    requestResource: { group, version: 'v1', resource: options.resource },
    operation: options.operation,
    userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
    object: options.object ?? null,
    oldObject: options.oldObject ?? null,
    dryRun: false,
    options: {
      apiVersion: 'meta.k8s.io/v1',
      kind: `${options.operation[0] ?? ''}${options.operation.slice(1).toLowerCase()}Options`,
    },
  };
  if (options.namespace !== undefined) request.namespace = options.namespace;
  if (options.name !== undefined) request.name = options.name;
  if (options.subResource !== undefined) request.subResource = options.subResource;
  return {
    apiVersion: options.apiVersion ?? 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request,
  };
}

export interface ReviewResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string };
  patchType?: string;
  patch?: string;
  warnings?: string[];
}

export function responseOf(answer: HttpAnswer): {
  apiVersion: string;
  kind: string;
  response: ReviewResponse;
} {
  return answer.json<{ apiVersion: string; kind: string; response: ReviewResponse }>();
}

export function decodePatch(response: ReviewResponse): JsonPatchOperation[] {
  if (response.patch === undefined) throw new Error('the response has no patch');
  return JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonPatchOperation[];
}
