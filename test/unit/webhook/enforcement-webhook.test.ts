import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { MAX_WARNING_BYTES } from '../../../src/webhook/admission/admission-warnings.js';
import { admissionReview, responseOf, startHarness, storeOf, type Harness } from './harness.js';

/** A Reject rule on ConfigMaps without an `owner` label, in the given enforcement mode. */
function ownerRule(
  name: string,
  annotations: string,
  message = 'ConfigMap {{ .Target.metadata.name }} has no owner',
): string {
  return `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: ${name}
  namespace: team
  annotations: {${annotations}}
spec:
  type: Reject
  match:
    - select: '$.kind'
      matchValue: ConfigMap
    - select: '$.metadata.labels.owner'
      negate: true
  rejectMessage: '${message}'
`;
}

/** A Patch rule whose value template fails on every ConfigMap (`fail`). */
function brokenPatchRule(annotations: string): string {
  return `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: broken
  namespace: team
  annotations: {${annotations}}
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/x
      value: '{{ fail "cannot work" }}'
`;
}

function configMap(labels: Record<string, string> = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'team', labels },
  };
}

function review(object: JsonObject): JsonObject {
  return admissionReview({
    operation: 'CREATE',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'team',
    name: 'cm',
    object,
  });
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('Reject rules by enforcement mode (api.kubemod.io/enforcement)', () => {
  it('Warn: admits the request and answers the rendered message as a warning', async () => {
    harness = await startHarness({
      store: () => storeOf(ownerRule('owner', '"api.kubemod.io/enforcement": Warn')),
    });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response.allowed).toBe(true);
    expect(response.status).toBeUndefined();
    expect(response.warnings).toEqual(['team/owner: "ConfigMap cm has no owner"']);
    const metrics = await harness.metrics.render();
    expect(metrics).toContain('kubemod_rule_results_total{rule="team/owner",result="warned"} 1');
    expect(metrics).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="allowed"} 1',
    );
    expect(metrics).not.toContain('kubemod_rule_rejections_total{rule="team/owner"}');
  });

  it('Warn: a conforming object gets no warning', async () => {
    harness = await startHarness({
      store: () => storeOf(ownerRule('owner', '"api.kubemod.io/enforcement": Warn')),
    });
    const answer = await harness.post('/dragnet-webhook', review(configMap({ owner: 'me' })));
    expect(responseOf(answer).response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('Audit: admits silently (no warning) and counts the violation', async () => {
    harness = await startHarness({
      store: () => storeOf(ownerRule('owner', '"api.kubemod.io/enforcement": Audit')),
    });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response).toEqual({ uid: 'uid-1', allowed: true });
    const metrics = await harness.metrics.render();
    expect(metrics).toContain('kubemod_rule_results_total{rule="team/owner",result="audited"} 1');
  });

  it('Enforce (explicit or absent) refuses as before and is counted as rejected', async () => {
    harness = await startHarness({
      store: () =>
        storeOf(
          ownerRule('explicit', '"api.kubemod.io/enforcement": Enforce') +
            '---' +
            ownerRule('implicit', ''),
        ),
    });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      'operation rejected by the following ModRule(s): team/explicit: "ConfigMap cm has no owner",team/implicit: "ConfigMap cm has no owner"',
    );
    const metrics = await harness.metrics.render();
    expect(metrics).toContain(
      'kubemod_rule_results_total{rule="team/explicit",result="rejected"} 1',
    );
    expect(metrics).toContain('kubemod_rule_rejections_total{rule="team/implicit"} 1');
  });

  it('bounds each warning to 120 bytes on one line, and the number of warnings', async () => {
    const rules = Array.from({ length: 12 }, (_, i) =>
      ownerRule(`w${String(i)}`, '"api.kubemod.io/enforcement": Warn', `{{ repeat 300 "é" }}`),
    ).join('---');
    harness = await startHarness({ store: () => storeOf(rules) });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response.allowed).toBe(true);
    const warnings = response.warnings ?? [];
    expect(warnings).toHaveLength(11);
    for (const warning of warnings) {
      expect(Buffer.byteLength(warning, 'utf8')).toBeLessThanOrEqual(MAX_WARNING_BYTES);
      expect(warning).not.toMatch(/[\n\r]/);
    }
    expect(warnings[0]).toMatch(/^team\/w0: "éé+…$/);
    expect(warnings[10]).toBe('kubemod-ts: 2 more ModRule warning(s); see kubemod-ts dryrun');
  });
});

describe('Rules that cannot be evaluated, by failure policy (api.kubemod.io/failure-policy)', () => {
  it('Fail: refuses the request, naming the rule and the reason', async () => {
    harness = await startHarness({
      store: () => storeOf(brokenPatchRule('"api.kubemod.io/failure-policy": Fail')),
    });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response.allowed).toBe(false);
    expect(response.status?.code).toBe(403);
    expect(response.status?.message).toMatch(
      /^operation rejected by the following ModRule\(s\): team\/broken: "could not be evaluated \(failure policy Fail\): KM\d{4} spec\.patch\[0\]\.value: .+"$/,
    );
    // Not skipped, so not in the "failed and were skipped" warning.
    expect(response.warnings).toBeUndefined();
    const metrics = await harness.metrics.render();
    expect(metrics).toContain('kubemod_rule_results_total{rule="team/broken",result="refused"} 1');
    expect(metrics).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="refused"} 1',
    );
    expect(metrics).toMatch(/kubemod_rule_errors_total\{rule="team\/broken",code="KM\d{4}"\} 1/);
  });

  it('Ignore (explicit or absent): skips the rule, allows with a warning, counts it', async () => {
    for (const annotations of ['"api.kubemod.io/failure-policy": Ignore', '']) {
      harness = await startHarness({ store: () => storeOf(brokenPatchRule(annotations)) });
      const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
      expect(response.allowed).toBe(true);
      expect(response.warnings).toEqual([
        'kubemod-ts: ModRule(s) failed and were skipped: team/broken',
      ]);
      const metrics = await harness.metrics.render();
      expect(metrics).toContain('kubemod_rule_results_total{rule="team/broken",result="failed"} 1');
      await harness.close();
      harness = undefined;
    }
  });

  it('Fail: a request the webhook cannot evaluate in time is refused, not allowed', async () => {
    let now = 0;
    harness = await startHarness({
      store: () => storeOf(brokenPatchRule('"api.kubemod.io/failure-policy": Fail')),
      clock: () => (now += 9000),
    });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      'operation rejected by the following ModRule(s): team/broken: "could not be evaluated (failure policy Fail): request not evaluated, it waited 9000ms (deadline 8000ms)"',
    );
  });

  it('an Ignore rule that cannot be evaluated in time leaves the request allowed', async () => {
    let now = 0;
    harness = await startHarness({
      store: () => storeOf(brokenPatchRule('')),
      clock: () => (now += 9000),
    });
    const { response } = responseOf(await harness.post('/dragnet-webhook', review(configMap())));
    expect(response.allowed).toBe(true);
  });
});
