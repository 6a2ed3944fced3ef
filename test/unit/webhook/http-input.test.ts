import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_LIMITS } from '../../../src/webhook/server.js';
import { admissionReview, send, startHarness, testTls, type Harness } from './harness.js';

let harness: Harness | undefined;
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
    const review = admissionReview({
      operation: 'CREATE',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'a',
      object: { kind: 'ConfigMap', data: { big: 'x'.repeat(4096) } },
    });
    const answer = await harness.post('/dragnet-webhook', review);
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      error: 'request body exceeds the limit of 1024 bytes',
      code: 'KM6004',
    });
  });

  it('accepts up to 3 MiB by default', async () => {
    harness = await startHarness();
    const review = admissionReview({
      operation: 'CREATE',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'a',
      object: { kind: 'ConfigMap', data: { big: 'x'.repeat(2 * 1024 * 1024) } },
    });
    expect((await harness.post('/dragnet-webhook', review)).status).toBe(200);
    const tooBig = admissionReview({
      operation: 'CREATE',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'a',
      object: { kind: 'ConfigMap', data: { big: 'x'.repeat(3 * 1024 * 1024) } },
    });
    expect((await harness.post('/dragnet-webhook', tooBig)).status).toBe(400);
  });

  it('answers 404 for unknown routes', async () => {
    harness = await startHarness();
    const answer = await send(harness.server.port, testTls().ca, 'GET', '/nope');
    expect(answer.status).toBe(404);
    expect(answer.json()).toMatchObject({ error: 'no route for GET /nope' });
  });
});
