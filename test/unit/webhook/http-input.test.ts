import { request } from 'node:https';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_LIMITS } from '../../../src/webhook/server.js';
import { admissionReview, send, startHarness, testTls, type Harness } from './harness.js';
import type { JsonObject } from '../../../src/engine/json.js';

let harness: Harness | undefined;

/** A CREATE review of a ConfigMap in namespace `a`. */
function configMapReview(object: JsonObject): JsonObject {
  return admissionReview({
    operation: 'CREATE',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'a',
    object,
  });
}
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('malformed HTTP input', () => {
  it('answers 400 with the parser reason when the body is not JSON', async () => {
    harness = await startHarness();
    const answer = await harness.post('/dragnet-webhook', '{"apiVersion": ');
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'KM6003' });
    expect(answer.json<{ error: string }>().error).toMatch(/^request body is not valid JSON: /);
  });

  it('answers 400 when the body is not an AdmissionReview', async () => {
    harness = await startHarness();
    const notReview = await harness.post('/dragnet-webhook', { apiVersion: 'v1', kind: 'Pod' });
    expect(notReview.status).toBe(400);
    expect(notReview.json()).toEqual({
      error: 'expected kind AdmissionReview, got "Pod"',
      code: 'KM6003',
    });
    const badVersion = await harness.post('/dragnet-webhook', {
      apiVersion: 'admission.k8s.io/v2',
      kind: 'AdmissionReview',
      request: { uid: 'u', operation: 'CREATE' },
    });
    expect(badVersion.json<{ error: string }>().error).toBe(
      'unsupported AdmissionReview apiVersion "admission.k8s.io/v2" (supported: admission.k8s.io/v1, admission.k8s.io/v1beta1)',
    );
    const noUid = await harness.post('/validate-api-kubemod-io-v1beta1-modrule', {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { operation: 'CREATE' },
    });
    expect(noUid.status).toBe(400);
    expect(noUid.json<{ error: string }>().error).toBe('request.uid is missing');
    expect(await harness.metrics.render()).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="unknown",result="malformed"} 2',
    );
  });

  it('answers 400 naming the limit when the body is too large', async () => {
    harness = await startHarness({ limits: { ...DEFAULT_WEBHOOK_LIMITS, bodyLimitBytes: 1024 } });
    const review = configMapReview({ kind: 'ConfigMap', data: { big: 'x'.repeat(4096) } });
    const answer = await harness.post('/dragnet-webhook', review);
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      error: 'request body exceeds the limit of 1024 bytes',
      code: 'KM6004',
    });
  });

  it('accepts up to 3 MiB by default', async () => {
    harness = await startHarness();
    const review = configMapReview({
      kind: 'ConfigMap',
      data: { big: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect((await harness.post('/dragnet-webhook', review)).status).toBe(200);
    const tooBig = configMapReview({
      kind: 'ConfigMap',
      data: { big: 'x'.repeat(3 * 1024 * 1024) },
    });
    expect((await harness.post('/dragnet-webhook', tooBig)).status).toBe(400);
  });

  it('answers 404 for unknown routes', async () => {
    harness = await startHarness();
    const answer = await send(harness.server.port, testTls().ca, 'GET', '/nope');
    expect(answer.status).toBe(404);
    expect(answer.json()).toMatchObject({ error: 'no route for GET /nope' });
  });

  it('routes a webhook path that carries a query, as the API server sends ?timeout=10s', async () => {
    harness = await startHarness();
    const review = configMapReview({ kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' } });
    const answer = await harness.post('/dragnet-webhook?timeout=10s', review);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.json()).toMatchObject({ kind: 'AdmissionReview', response: { allowed: true } });
  });

  it('answers a gzip-compressed AdmissionReview exactly as the plain one', async () => {
    harness = await startHarness();
    const review = JSON.stringify(
      configMapReview({ kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' } }),
    );
    const plain = await harness.post('/dragnet-webhook', review);
    const zipped = await send(
      harness.server.port,
      testTls().ca,
      'POST',
      '/dragnet-webhook',
      gzipSync(review),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    );
    expect(zipped.status).toBe(200);
    expect(zipped.json()).toEqual(plain.json());
    expect(await harness.metrics.render()).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="allowed"} 2',
    );
  });

  it('enforces the limit while reading a body sent without a length', async () => {
    harness = await startHarness({ limits: { ...DEFAULT_WEBHOOK_LIMITS, bodyLimitBytes: 1024 } });
    const port = harness.server.port;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/dragnet-webhook',
          method: 'POST',
          ca: testTls().ca,
          agent: false,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 8; i++) req.write('x'.repeat(512));
      req.end();
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'request body exceeds the limit of 1024 bytes',
      code: 'KM6004',
    });
  });
});
