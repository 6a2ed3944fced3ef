import { connect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueCertificate } from '../../../src/tls/certificates.js';
import { admissionReview, send, startHarness, storeOf, testTls, type Harness } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RULES = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: label, namespace: shop }
spec:
  type: Patch
  match: [{ select: '$.kind', matchValue: ConfigMap }]
  patch: [{ op: add, path: /metadata/labels, value: '{a: b}' }]
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: deny-secrets, namespace: shop }
spec:
  type: Reject
  match: [{ select: '$.kind', matchValue: Secret }]
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: everywhere, namespace: kubemod-system }
spec:
  type: Patch
  match: [{ select: '$.kind', matchValue: Node }]
  patch: [{ op: remove, path: /metadata/labels/x }]
`;

describe('health, readiness and metrics', () => {
  it('exposes request, latency, per-rule and loaded-rule metrics on its own registry', async () => {
    const store = storeOf(RULES);
    harness = await startHarness({ store: () => store });
    const review = (kind: string) =>
      admissionReview({
        operation: 'CREATE',
        kind,
        resource: `${kind.toLowerCase()}s`,
        namespace: 'shop',
        object: { kind, metadata: { name: 'x' } },
      });
    await harness.post('/dragnet-webhook', review('ConfigMap'));
    await harness.post('/dragnet-webhook', review('Secret'));
    await harness.post('/dragnet-webhook', review('Service'));
    const answer = await harness.scrape();
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    const text = answer.text;
    expect(text).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="patched"} 1',
    );
    expect(text).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="rejected"} 1',
    );
    expect(text).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="allowed"} 1',
    );
    expect(text).toContain('kubemod_webhook_request_duration_seconds_count{webhook="dragnet"} 3');
    expect(text).toContain('kubemod_rule_patches_total{rule="shop/label"} 1');
    expect(text).toContain('kubemod_rule_rejections_total{rule="shop/deny-secrets"} 1');
    expect(text).toContain('kubemod_rules_loaded{namespace="shop"} 2');
    expect(text).toContain('kubemod_rules_loaded{namespace="kubemod-system"} 1');
    // Collected at scrape time: a rule deleted from the store disappears from the gauge.
    store.delete('kubemod-system', 'everywhere');
    const again = (await harness.scrape()).text;
    expect(again).not.toContain('namespace="kubemod-system"');
    // Never the global default registry.
    const { register } = await import('prom-client');
    expect(await register.metrics()).not.toContain('kubemod_');
  });

  it('is ready only when the rule source is, and not while shutting down', async () => {
    let loaded = false;
    harness = await startHarness({ ready: () => loaded });
    const { port } = harness.server;
    const { ca } = testTls();
    expect((await send(port, ca, 'GET', '/healthz')).text).toBe('ok');
    const before = await send(port, ca, 'GET', '/readyz');
    expect([before.status, before.text]).toEqual([503, 'not ready']);
    loaded = true;
    expect((await send(port, ca, 'GET', '/readyz')).status).toBe(200);
    const closing = harness.server.close();
    // The listening socket is closed at once, so probes can no longer connect.
    await expect(send(port, ca, 'GET', '/readyz')).rejects.toThrow(/ECONNREFUSED/);
    await closing;
  });

  it('lets in-flight requests finish on close', async () => {
    harness = await startHarness();
    const { port } = harness.server;
    const { ca } = testTls();
    // Start a request whose body arrives slowly, then close the server while it is in flight.
    const { request } = await import('node:https');
    const body = JSON.stringify(
      admissionReview({
        operation: 'CREATE',
        kind: 'Pod',
        resource: 'pods',
        namespace: 'a',
        object: { kind: 'Pod' },
      }),
    );
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/dragnet-webhook', method: 'POST', ca, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => {
            resolve(res.statusCode ?? 0);
          });
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 150);
    });
    await new Promise((r) => setTimeout(r, 50));
    const closed = harness.server.close();
    expect(await answer).toBe(200);
    await closed;
    harness = undefined;
  });

  it('swaps its certificate without restarting', async () => {
    harness = await startHarness();
    const { port } = harness.server;
    const other = createCertificateAuthority({ commonName: 'second CA' });
    const leaf = issueCertificate(other, { commonName: 'second', ipAddresses: ['127.0.0.1'] });
    const issuerOf = (ca: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca }, () => {
          const issuer = socket.getPeerCertificate().issuer.CN;
          socket.end();
          resolve(Array.isArray(issuer) ? issuer.join(',') : (issuer ?? ''));
        });
        socket.on('error', reject);
      });
    expect(await issuerOf(testTls().ca)).toBe('webhook test CA');
    harness.server.reloadCertificate({ cert: leaf.certPem, key: leaf.keyPem });
    expect(await issuerOf(other.certPem)).toBe('second CA');
    await expect(issuerOf(testTls().ca)).rejects.toThrow();
  });
});
