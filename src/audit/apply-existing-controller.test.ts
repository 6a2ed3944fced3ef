import { describe, expect, it } from 'vitest';
import { evaluate } from '../engine/evaluate.js';
import type { JsonObject } from '../engine/json.js';
import { RuleStore } from '../engine/store.js';
import { makeRule } from '../engine/test-rules.js';
import { createSilentLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { createApplyExistingController, jobDue } from './apply-existing-controller.js';
import type { ApplyGate, ApplyPermission } from './apply-gate.js';
import { registerAuditMetrics } from './audit-metrics.js';
import { DEPLOYMENTS, FakeAuditApi, RecordingReporter } from './fake-audit-api.test-support.js';
import { identityOf } from './object-verdict.js';

const ANNOTATION = 'api.kubemod.io/apply-to-existing';

function ruleObject(
  name: string,
  annotations: Record<string, string>,
  status?: JsonObject,
): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, generation: 2, annotations },
    ...(status === undefined ? {} : { status }),
  };
}

describe('jobDue', () => {
  it('wants the annotation and no finished job for the current generation', () => {
    expect(jobDue(ruleObject('r', {}))).toBe(false);
    expect(jobDue(ruleObject('r', { [ANNOTATION]: 'false' }))).toBe(false);
    expect(jobDue(ruleObject('r', { [ANNOTATION]: 'true' }))).toBe(true);
    const done = { applyToExisting: { observedGeneration: 2, phase: 'Completed' } };
    expect(jobDue(ruleObject('r', { [ANNOTATION]: 'true' }, done))).toBe(false);
    const older = { applyToExisting: { observedGeneration: 1, phase: 'Completed' } };
    expect(jobDue(ruleObject('r', { [ANNOTATION]: 'true' }, older))).toBe(true);
    const running = { applyToExisting: { observedGeneration: 2, phase: 'Running' } };
    expect(jobDue(ruleObject('r', { [ANNOTATION]: 'true' }, running))).toBe(true);
  });
});

describe('apply-to-existing controller', () => {
  const OPEN_GATE: ApplyGate = {
    enabled: () => Promise.resolve({ allowed: true }),
    accessFor: () => ({
      mayList: () => Promise.resolve(true),
      mayUpdate: (_target, _namespace, name) => Promise.resolve(name !== 'platform'),
    }),
  };

  function setup(objects: Map<string, JsonObject>, leader = { value: true }, gate = OPEN_GATE) {
    const api = new FakeAuditApi();
    api.discovery = [
      {
        group: 'apps',
        version: 'v1',
        resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['list'] }],
      },
    ];
    const store = new RuleStore();
    store.put(
      makeRule('shop', 'tier', {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Deployment' }],
        patch: [{ op: 'add', path: '/metadata/labels/tier', value: 'web' }],
      }),
    );
    store.put(
      makeRule('shop', 'deny', {
        type: 'Reject',
        match: [{ select: '$.metadata.name', matchValue: 'zzz' }],
      }),
    );
    const run = (object: JsonObject) =>
      evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object });
    api.admit = (object) => run(object).patched;
    const reporter = new RecordingReporter();
    const controller = createApplyExistingController({
      api,
      reporter,
      store: () => store,
      ruleObject: (key) => objects.get(key),
      ruleObjects: () => [...objects.values()],
      namespaces: () => new Map(),
      targets: () => Promise.resolve([DEPLOYMENTS]),
      evaluate: (object) => run(object),
      isLeader: () => leader.value,
      gate,
      ratePerSecond: 1000,
      settleMs: 0,
      pageSize: 10,
      metrics: registerAuditMetrics(createMetrics().registry, () => true),
      logger: createSilentLogger(),
      now: () => Date.parse('2026-01-02T03:04:05Z'),
      delay: () => Promise.resolve(),
      persistEvery: 1,
    });
    return { api, reporter, controller };
  }

  async function settle(controller: { running: string | undefined }): Promise<void> {
    for (let i = 0; i < 100 && controller.running !== undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it('runs the job, resuming the counts of a previous leader, and records the totals', async () => {
    const resumed = {
      applyToExisting: {
        observedGeneration: 2,
        phase: 'Running',
        updated: 5,
        failed: 1,
        startTime: '2026-01-01T00:00:00Z',
      },
    };
    const objects = new Map([['shop/tier', ruleObject('tier', { [ANNOTATION]: 'true' }, resumed)]]);
    const { api, reporter, controller } = setup(objects);
    api.add(DEPLOYMENTS, { metadata: { name: 'a', namespace: 'shop' } });
    api.add(DEPLOYMENTS, { metadata: { name: 'b', namespace: 'shop', labels: { tier: 'web' } } });
    api.add(DEPLOYMENTS, { metadata: { name: 'platform', namespace: 'shop' } });
    controller.resync();
    await settle(controller);
    expect(api.updates('a')).toBe(1);
    expect(api.updates('b')).toBe(0);
    const last = reporter.statuses.at(-1);
    expect(last).toEqual({
      rule: 'shop/tier',
      status: {
        applyToExisting: {
          observedGeneration: 2,
          phase: 'Completed',
          updated: 6,
          failed: 1,
          forbidden: 1,
          startTime: '2026-01-01T00:00:00Z',
          completionTime: '2026-01-02T03:04:05Z',
        },
      },
    });
    expect(reporter.events).toEqual([
      {
        rule: 'shop/tier',
        type: 'Warning',
        reason: 'AppliedToExisting',
        message:
          "Applied to existing objects: 6 updated, 1 failed, 1 forbidden to the rule's author.",
      },
    ]);
    // The same generation again (our own status write arriving): nothing more happens.
    controller.consider('shop/tier');
    await settle(controller);
    expect(reporter.events).toHaveLength(1);
    await controller.stop();
  });

  it('marks Reject rules Ignored, and does nothing on a follower', async () => {
    const objects = new Map([['shop/deny', ruleObject('deny', { [ANNOTATION]: 'true' })]]);
    const leader = { value: false };
    const { reporter, controller } = setup(objects, leader);
    controller.resync();
    await settle(controller);
    expect(reporter.statuses).toEqual([]);
    leader.value = true;
    controller.resync();
    await settle(controller);
    expect(reporter.statuses).toEqual([
      {
        rule: 'shop/deny',
        status: {
          applyToExisting: {
            observedGeneration: 2,
            phase: 'Ignored',
            updated: 0,
            failed: 0,
            forbidden: 0,
            message: 'Reject rules are audit-only: apply-to-existing does nothing for them',
          },
        },
      },
    ]);
    expect(reporter.events.map((e) => e.reason)).toEqual(['ApplyToExistingIgnored']);
    await controller.stop();
  });

  it('reports a rule the gate does not enable as Disabled, with the reason, and touches nothing', async () => {
    const objects = new Map([['shop/tier', ruleObject('tier', { [ANNOTATION]: 'true' })]]);
    const refusal: ApplyPermission = { allowed: false, reason: 'not enabled in namespace shop' };
    const gate: ApplyGate = { ...OPEN_GATE, enabled: () => Promise.resolve(refusal) };
    const { api, reporter, controller } = setup(objects, { value: true }, gate);
    api.add(DEPLOYMENTS, { metadata: { name: 'a', namespace: 'shop' } });
    controller.resync();
    await settle(controller);
    expect(api.calls.filter((c) => !c.startsWith('GET /api'))).toEqual([]);
    expect(reporter.statuses).toEqual([
      {
        rule: 'shop/tier',
        status: {
          applyToExisting: {
            observedGeneration: 2,
            phase: 'Disabled',
            updated: 0,
            failed: 0,
            forbidden: 0,
            message: 'not enabled in namespace shop',
          },
        },
      },
    ]);
    expect(reporter.events.map((e) => `${e.reason}: ${e.message}`)).toEqual([
      'ApplyToExistingDisabled: not enabled in namespace shop',
    ]);
    await controller.stop();
  });
});
