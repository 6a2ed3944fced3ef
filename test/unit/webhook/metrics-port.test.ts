/**
 * /metrics (per-rule counts: which namespaces have rules, what they patch and reject) is served
 * only on the plain-HTTP health port, which a NetworkPolicy can keep to Prometheus; never on
 * the webhook's HTTPS port, which every client of the API server's network path can reach.
 */
import { request } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReview, httpGet, startHarness, storeOf, type Harness } from './harness.js';
import { runServeInProcess, type InProcessServe } from './serve-in-process.js';

/** GET `path` on the HTTPS port, whatever its certificate (serve's is self-signed). */
function httpsGet(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const RULE = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: label, namespace: shop }
spec:
  type: Patch
  match: [{ select: '$.kind', matchValue: ConfigMap }]
  patch: [{ op: add, path: /metadata/labels/x, value: y }]
`;

let harness: Harness | undefined;
let serve: InProcessServe | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  serve?.stop();
  serve = undefined;
});

describe('/metrics', () => {
  it('is a 404 on the webhook port and a 200 on the health port (the operator)', async () => {
    harness = await startHarness({ store: () => storeOf(RULE) });
    const review = admissionReview({
      operation: 'CREATE',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'shop',
      object: { kind: 'ConfigMap', metadata: { name: 'c' } },
    });
    expect((await harness.post('/dragnet-webhook', review)).status).toBe(200);
    const onWebhook = await httpsGet(harness.server.port, '/metrics');
    expect(onWebhook.status).toBe(404);
    expect(onWebhook.text).not.toContain('kubemod_');
    const onHealth = await harness.scrape();
    expect(onHealth.status).toBe(200);
    expect(onHealth.text).toContain('kubemod_rule_patches_total{rule="shop/label"} 1');
  });

  it('is served by `serve` on --health-port only, with /healthz and /readyz', async () => {
    serve = await runServeInProcess('samples/modrules', ['--no-ui', '--health-port', '0']);
    const health = serve.health;
    expect(health).toBeDefined();
    expect((await httpsGet(serve.server.port, '/metrics')).status).toBe(404);
    expect((await httpsGet(serve.server.port, '/healthz')).status).toBe(200);
    const scraped = await httpGet(`${health?.url ?? ''}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('kubemod_rules_loaded{namespace="default"}');
    expect((await httpGet(`${health?.url ?? ''}/readyz`)).status).toBe(200);
    expect(serve.output()).toContain('"msg":"health server listening"');
  }, 60_000); // serve generates its RSA keys first: seconds on a busy machine

  it('is not served at all by `serve` without --health-port', async () => {
    serve = await runServeInProcess('samples/modrules', ['--no-ui']);
    expect(serve.health).toBeUndefined();
    expect((await httpsGet(serve.server.port, '/metrics')).status).toBe(404);
  }, 60_000);
});
