import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonPatchOperation } from '../engine/json.js';
import { createMetrics } from '../observability/metrics.js';
import { answerAdmission, type AdmissionRoute } from './admission-listener.js';

const REVIEW = Buffer.from(
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', operation: 'CREATE', object: { kind: 'ConfigMap' } },
  }),
);

describe('answerAdmission', () => {
  it('allows unchanged with a warning when the patch cannot be written', async () => {
    const deep: JsonObject = {};
    let node = deep;
    for (let i = 0; i < 100_000; i++) {
      const next: JsonObject = {};
      node.a = next;
      node = next;
    }
    const patch: JsonPatchOperation[] = [{ op: 'add', path: '/x', value: deep }];
    const route: AdmissionRoute = {
      webhook: 'dragnet',
      handle: () => ({ response: { allowed: true, patch }, result: 'patched' }),
    };
    const metrics = createMetrics();
    const answer = (await answerAdmission(route, REVIEW, 0, { clock: () => 0, metrics })) as {
      response: { allowed: boolean; patch?: string; warnings?: string[] };
    };
    expect(answer.response.allowed).toBe(true);
    expect(answer.response.patch).toBeUndefined();
    expect(answer.response.warnings).toEqual([
      expect.stringMatching(/^kubemod-ts: ModRules not applied, the patch cannot be written: /),
    ]);
    expect(await metrics.render()).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="error"} 1',
    );
  });
});
