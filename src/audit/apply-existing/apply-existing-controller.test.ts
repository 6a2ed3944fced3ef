import { describe, expect, it } from 'vitest';
import { evaluate } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import { createSilentLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import {
  createApplyExistingController,
  DEFAULT_APPLY_SCHEDULING,
  jobDue,
  type ApplySchedulingSettings,
} from './apply-existing-controller.js';
import type { ApplyGate, ApplyPermission } from '../../authz/apply-gate.js';
import { registerAuditMetrics } from '../run/audit-metrics.js';
import {
  DEPLOYMENTS,
  FakeAuditApi,
  RecordingReporter,
} from '../run/fake-audit-api.test-support.js';
import { identityOf } from '../run/object-verdict.js';
import { VirtualClock } from './virtual-clock.test-support.js';

const ANNOTATION = 'api.kubemod.io/apply-to-existing';

function ruleObject(
  name: string,
  annotations: Record<string, string>,
  status?: JsonObject,
  namespace = 'shop',
): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace, uid: `uid-${name}`, generation: 2, annotations },
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
    const disabled = { applyToExisting: { observedGeneration: 2, phase: 'Disabled' } };
    expect(jobDue(ruleObject('r', { [ANNOTATION]: 'true' }, disabled))).toBe(true);
  });
});

/** A Patch rule of `namespace` labelling the Deployments labelled rule=<name>. */
function labelRule(namespace: string, name: string) {
  return makeRule(namespace, name, {
    type: 'Patch',
    match: [
      { select: '$.kind', matchValue: 'Deployment' },
      { select: '$.metadata.labels.rule', matchValue: name },
    ],
    patch: [{ op: 'add', path: '/metadata/labels/done', value: 'yes' }],
  });
}

const ALLOW: ApplyGate = {
  enabled: () => Promise.resolve({ allowed: true }),
  accessFor: () => ({
    mayList: () => Promise.resolve(true),
    mayUpdate: () => Promise.resolve(true),
    confirmUpdate: () => Promise.resolve(true),
  }),
};

interface Setup {
  readonly api: FakeAuditApi;
  readonly store: RuleStore;
  readonly reporter: RecordingReporter;
  readonly clock: VirtualClock;
  readonly objects: Map<string, JsonObject>;
  /** `name@ms` of every update, in order. */
  readonly writes: { name: string; namespace: string; at: number }[];
  readonly sweeps: { count: number; fail: boolean };
  readonly controller: ReturnType<typeof createApplyExistingController>;
  /** Adds an annotated label rule and `count` Deployments it applies to. */
  addRule(namespace: string, name: string, count: number): string;
  completed(): string[];
}

function setup(
  scheduling: Partial<ApplySchedulingSettings> = {},
  options: { leader?: { value: boolean }; gate?: ApplyGate } = {},
): Setup {
  const api = new FakeAuditApi();
  const store = new RuleStore();
  const clock = new VirtualClock(Date.parse('2026-01-02T03:04:05Z'));
  const objects = new Map<string, JsonObject>();
  const writes: Setup['writes'] = [];
  const sweeps = { count: 0, fail: false };
  const run = (object: JsonObject) =>
    evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object });
  api.admit = (object) => run(object).patched;
  api.beforeUpdate = (object) => {
    const { name, namespace } = identityOf(object);
    writes.push({ name, namespace: namespace ?? '', at: clock.now() });
  };
  // Status writes reach the rule objects, as the informer would show them.
  const reporter = new RecordingReporter();
  const patchStatus = reporter.patchStatus.bind(reporter);
  reporter.patchStatus = (namespace, name, status) => {
    const key = `${namespace}/${name}`;
    const obj = objects.get(key);
    if (obj !== undefined) objects.set(key, { ...obj, status });
    return patchStatus(namespace, name, status);
  };
  const leader = options.leader ?? { value: true };
  const controller = createApplyExistingController({
    api,
    reporter,
    store: () => store,
    ruleObject: (key) => objects.get(key),
    ruleObjects: () => [...objects.values()],
    namespaces: () => new Map(),
    targets: () => {
      sweeps.count++;
      return sweeps.fail
        ? Promise.reject(new Error('discovery is down'))
        : Promise.resolve([DEPLOYMENTS]);
    },
    evaluate: (object) => run(object),
    gate: options.gate ?? ALLOW,
    isLeader: () => leader.value,
    scheduling: { ...DEFAULT_APPLY_SCHEDULING, settleMs: 0, ...scheduling },
    pageSize: 10,
    metrics: registerAuditMetrics(createMetrics().registry, () => true),
    logger: createSilentLogger(),
    now: clock.now,
    delay: clock.delay,
    persistEvery: 1,
  });
  return {
    api,
    store,
    reporter,
    clock,
    objects,
    writes,
    sweeps,
    controller,
    addRule(namespace, name, count): string {
      store.put(labelRule(namespace, name));
      objects.set(
        `${namespace}/${name}`,
        ruleObject(name, { [ANNOTATION]: 'true' }, undefined, namespace),
      );
      for (let i = 0; i < count; i++)
        api.add(DEPLOYMENTS, {
          metadata: { name: `${name}-${String(i)}`, namespace, labels: { rule: name } },
        });
      return `${namespace}/${name}`;
    },
    completed(): string[] {
      return reporter.statuses
        .filter((s) => JSON.stringify(s.status).includes('"phase":"Completed"'))
        .map((s) => s.rule);
    },
  };
}

describe('apply-to-existing controller', () => {
  it('runs the job, resuming the counts of a previous leader, and records the totals', async () => {
    const s = setup();
    s.store.put(
      makeRule('shop', 'tier', {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Deployment' }],
        patch: [{ op: 'add', path: '/metadata/labels/tier', value: 'web' }],
      }),
    );
    const resumed = {
      applyToExisting: {
        observedGeneration: 2,
        phase: 'Running',
        updated: 5,
        forbidden: 2,
        failed: 1,
        startTime: '2026-01-01T00:00:00Z',
      },
    };
    s.objects.set('shop/tier', ruleObject('tier', { [ANNOTATION]: 'true' }, resumed));
    s.api.add(DEPLOYMENTS, { metadata: { name: 'a', namespace: 'shop' } });
    s.api.add(DEPLOYMENTS, { metadata: { name: 'b', namespace: 'shop', labels: { tier: 'web' } } });
    s.controller.resync();
    await s.clock.until(() => s.reporter.events.length > 0, 10_000);
    expect(s.api.updates('a')).toBe(1);
    expect(s.api.updates('b')).toBe(0);
    expect(s.reporter.statuses.at(-1)).toEqual({
      rule: 'shop/tier',
      status: {
        applyToExisting: {
          observedGeneration: 2,
          phase: 'Completed',
          updated: 6,
          forbidden: 2,
          failed: 1,
          startTime: '2026-01-01T00:00:00Z',
          completionTime: '2026-01-02T03:04:05Z',
        },
      },
    });
    expect(s.reporter.events).toEqual([
      {
        rule: 'shop/tier',
        type: 'Warning',
        reason: 'AppliedToExisting',
        message: 'Applied to existing objects: 6 updated, 2 forbidden, 1 failed.',
      },
    ]);
    // The same generation again (our own status write arriving): nothing more happens.
    s.controller.consider('shop/tier');
    await s.clock.advance(5_000);
    expect(s.reporter.events).toHaveLength(1);
    await s.controller.stop();
  });

  it('interrupts a running job when its rule object changes without a new generation, and starts it again (issue 37)', async () => {
    // Whose rights each run of the job used: the author record of the rule object it was given.
    const runs: string[] = [];
    const gate: ApplyGate = {
      enabled: () => Promise.resolve({ allowed: true }),
      accessFor: (obj) => {
        const annotations = (obj.metadata as JsonObject).annotations as JsonObject;
        const recorded = annotations['api.kubemod.io/author'];
        const author = typeof recorded === 'string' ? recorded : '';
        runs.push(author);
        const may = (): Promise<boolean> => Promise.resolve(author === 'first');
        return { mayList: () => Promise.resolve(true), mayUpdate: may, confirmUpdate: may };
      },
    };
    const s = setup({ ratePerSecond: 1, maxRatePerSecond: 1 }, { gate });
    const key = s.addRule('shop', 'r', 10);
    const authored = (author: string): JsonObject => {
      const obj = s.objects.get(key) ?? {};
      const metadata = obj.metadata as JsonObject;
      const annotations = metadata.annotations as JsonObject;
      return {
        ...obj,
        metadata: {
          ...metadata,
          annotations: { ...annotations, 'api.kubemod.io/author': author },
          resourceVersion: author,
        },
      };
    };
    s.objects.set(key, authored('first'));
    s.controller.consider(key);
    await s.clock.until(() => s.writes.length >= 3, 60_000);
    // Same spec and generation, another author record (and resourceVersion).
    s.objects.set(key, authored('second'));
    s.controller.consider(key);
    await s.clock.until(() => s.completed().length === 1, 60_000);
    expect(runs).toEqual(['first', 'second']);
    // The second run's author may update nothing: no write after the change.
    expect(s.writes.length).toBeLessThanOrEqual(4);
    expect(s.reporter.statuses.at(-1)?.status).toMatchObject({
      applyToExisting: { phase: 'Completed' },
    });
    await s.controller.stop();
  });

  it('marks Reject rules Ignored, and does nothing on a follower', async () => {
    const leader = { value: false };
    const s = setup({}, { leader });
    s.store.put(
      makeRule('shop', 'deny', {
        type: 'Reject',
        match: [{ select: '$.metadata.name', matchValue: 'zzz' }],
      }),
    );
    s.objects.set('shop/deny', ruleObject('deny', { [ANNOTATION]: 'true' }));
    s.controller.resync();
    await s.clock.advance(5_000);
    expect(s.reporter.statuses).toEqual([]);
    leader.value = true;
    s.controller.resync();
    await s.clock.advance(5_000);
    expect(s.reporter.statuses).toEqual([
      {
        rule: 'shop/deny',
        status: {
          applyToExisting: {
            observedGeneration: 2,
            phase: 'Ignored',
            updated: 0,
            forbidden: 0,
            failed: 0,
            message: 'Reject rules are audit-only: apply-to-existing does nothing for them',
          },
        },
      },
    ]);
    expect(s.reporter.events.map((e) => e.reason)).toEqual(['ApplyToExistingIgnored']);
    await s.controller.stop();
  });

  it('waits the settle time per rule, all rules at once, not one after the other', async () => {
    const s = setup({ settleMs: 3_000, ratePerSecond: 100, maxRatePerSecond: 100 });
    const start = s.clock.now();
    const keys = ['r1', 'r2', 'r3', 'r4', 'r5'].map((name) => s.addRule('shop', name, 1));
    for (const key of keys) s.controller.consider(key);
    await s.clock.advance(2_999);
    expect(s.writes).toEqual([]);
    await s.clock.until(() => s.completed().length === 5, 10_000, 50);
    // Serial settles would need 5 × 3 s; here every job is done within 0.5 s of the first one.
    expect(s.clock.now() - start).toBeLessThanOrEqual(3_500);
    expect(s.writes.map((w) => w.name).sort()).toEqual(['r1-0', 'r2-0', 'r3-0', 'r4-0', 'r5-0']);
    await s.controller.stop();
  });

  it('serves namespaces round-robin: a long job gives its turn to a waiting namespace and resumes', async () => {
    const s = setup({ maxActiveNamespaces: 1, turnMs: 2_000, ratePerSecond: 2 });
    const start = s.clock.now();
    const a1 = s.addRule('a', 'a1', 10);
    const a2 = s.addRule('a', 'a2', 1);
    const b1 = s.addRule('b', 'b1', 1);
    for (const key of [a1, a2, b1]) s.controller.consider(key);
    await s.clock.until(() => s.completed().length === 3, 60_000);
    expect(s.completed()).toEqual([b1, a1, a2]);
    const firstB = s.writes.find((w) => w.namespace === 'b');
    // a1's turn ends after 2 s; b1 then takes a job token and a write token.
    expect((firstB?.at ?? Infinity) - start).toBeLessThanOrEqual(3_000);
    for (let i = 0; i < 10; i++) expect(s.api.updates(`a1-${String(i)}`)).toBe(1);
    expect(s.reporter.events.find((e) => e.rule === a1)?.message).toBe(
      'Applied to existing objects: 10 updated, 0 forbidden, 0 failed.',
    );
    await s.controller.stop();
  });

  it("does not let a namespace with many jobs delay another namespace's first object", async () => {
    const s = setup();
    const start = s.clock.now();
    for (let i = 0; i < 50; i++) s.addRule('a', `a${String(i)}`, 2);
    s.controller.resync();
    await s.clock.advance(10_000);
    s.controller.consider(s.addRule('b', 'b1', 1));
    const joined = s.clock.now();
    await s.clock.until(() => s.writes.some((w) => w.namespace === 'b'), 10_000, 50);
    expect(s.clock.now() - joined).toBeLessThanOrEqual(1_100);
    // a keeps going at its own rate meanwhile (2 tokens a second: job starts and writes).
    const aWrites = s.writes.filter((w) => w.namespace === 'a').length;
    expect(aWrites).toBeGreaterThan(5);
    expect(aWrites).toBeLessThanOrEqual(((s.clock.now() - start) / 1000) * 2);
    await s.controller.stop();
  });

  it('paces writes per namespace, under the shared ceiling', async () => {
    const s = setup({ ratePerSecond: 2, maxRatePerSecond: 4 });
    for (const ns of ['n1', 'n2', 'n3', 'n4']) s.controller.consider(s.addRule(ns, `${ns}r`, 6));
    await s.clock.until(() => s.completed().length === 4, 60_000);
    expect(s.writes).toHaveLength(24);
    for (const ns of ['n1', 'n2', 'n3', 'n4']) {
      const at = s.writes.filter((w) => w.namespace === ns).map((w) => w.at);
      for (let i = 1; i < at.length; i++)
        expect((at[i] ?? 0) - (at[i - 1] ?? 0)).toBeGreaterThanOrEqual(500);
    }
    const all = s.writes.map((w) => w.at);
    for (let i = 1; i < all.length; i++)
      expect((all[i] ?? 0) - (all[i - 1] ?? 0)).toBeGreaterThanOrEqual(250);
    await s.controller.stop();
  });

  it('lets at most K workloads of a namespace roll at a time (here: until the timeout)', async () => {
    const s = setup({ maxRollouts: 1, rolloutTimeoutMs: 30_000, rolloutPollMs: 1_000 });
    s.store.put(
      makeRule('shop', 'image', {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Deployment' }],
        patch: [{ op: 'add', path: '/spec/template/metadata/labels/tier', value: 'web' }],
      }),
    );
    s.objects.set('shop/image', ruleObject('image', { [ANNOTATION]: 'true' }));
    for (const name of ['d1', 'd2', 'd3'])
      s.api.add(DEPLOYMENTS, {
        metadata: { name, namespace: 'shop', generation: 1 },
        spec: { replicas: 1, template: { metadata: { labels: {} } } },
      });
    s.controller.consider('shop/image');
    await s.clock.until(() => s.writes.length === 2, 60_000);
    const [w1, w2] = s.writes;
    // d1's Pods never get ready (no kubelet): d2 waits for d1's rollout to time out.
    expect((w2?.at ?? 0) - (w1?.at ?? 0)).toBeGreaterThanOrEqual(30_000);
    expect((w2?.at ?? 0) - (w1?.at ?? 0)).toBeLessThanOrEqual(31_000);
    // d2's rollout is over (the controller saw it and its replica is ready): d3 goes at the next poll.
    s.api.touch(DEPLOYMENTS, 'shop', 'd2', (o) => {
      o.status = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1 };
    });
    await s.clock.until(() => s.writes.length === 3, 60_000);
    expect((s.writes[2]?.at ?? 0) - (w2?.at ?? 0)).toBeLessThanOrEqual(1_500);
    await s.controller.stop();
  });

  it('sweeps discovery once for many jobs, and again after a failed sweep', async () => {
    const s = setup({ ratePerSecond: 100, maxRatePerSecond: 100, retryMs: 5_000 });
    s.sweeps.fail = true;
    const first = s.addRule('shop', 'r0', 1);
    s.controller.consider(first);
    await s.clock.advance(1_000);
    expect(s.sweeps.count).toBe(1);
    expect(s.completed()).toEqual([]);
    s.sweeps.fail = false;
    for (let i = 1; i < 10; i++) s.controller.consider(s.addRule('shop', `r${String(i)}`, 1));
    await s.clock.until(() => s.completed().length === 10, 20_000);
    // One failed sweep, then one sweep for the ten jobs (the failed job retried after 5 s).
    expect(s.sweeps.count).toBe(2);
    await s.controller.stop();
  });

  it('reports a job the gate refuses as Disabled, once, and runs it when allowed', async () => {
    let permission: ApplyPermission = {
      allowed: false,
      reason: 'namespace shop has not opted in to apply-to-existing',
    };
    const accessed: string[] = [];
    const gate: ApplyGate = {
      enabled: () => Promise.resolve(permission),
      accessFor: (obj) => {
        accessed.push(identityOf(obj).name);
        return ALLOW.accessFor(obj);
      },
    };
    const s = setup({ retryMs: 10_000 }, { gate });
    const key = s.addRule('shop', 'r', 1);
    s.controller.consider(key);
    await s.clock.advance(25_000);
    expect(s.writes).toEqual([]);
    expect(s.reporter.statuses.map((st) => st.status)).toEqual([
      {
        applyToExisting: {
          observedGeneration: 2,
          phase: 'Disabled',
          updated: 0,
          forbidden: 0,
          failed: 0,
          message: 'namespace shop has not opted in to apply-to-existing',
        },
      },
    ]);
    expect(s.reporter.events).toEqual([
      {
        rule: key,
        type: 'Warning',
        reason: 'ApplyToExistingDisabled',
        message: 'namespace shop has not opted in to apply-to-existing',
      },
    ]);
    expect(accessed).toEqual([]);
    permission = { allowed: true };
    await s.clock.until(() => s.completed().length === 1, 20_000);
    expect(s.api.updates('r-0')).toBe(1);
    expect(accessed).toEqual(['r']);
    await s.controller.stop();
  });

  it('looks at a Disabled rule re-created under the same name at once, not after the retry', async () => {
    const refused: string[] = [];
    const gate: ApplyGate = {
      enabled: (_rule, obj) => {
        const uid = (obj.metadata as JsonObject).uid;
        if (uid === 'uid-r') {
          refused.push('uid-r');
          return Promise.resolve({ allowed: false, reason: 'the author may not use it' });
        }
        return Promise.resolve({ allowed: true });
      },
      accessFor: (obj) => ALLOW.accessFor(obj),
    };
    const s = setup({ retryMs: 600_000 }, { gate });
    const key = s.addRule('shop', 'r', 1);
    s.controller.consider(key);
    await s.clock.advance(1_000);
    expect(refused).toEqual(['uid-r']);
    // Deleted and created again (a new uid): its job runs within seconds, not in ten minutes.
    const old = s.objects.get(key) ?? {};
    s.objects.set(key, { ...old, metadata: { ...(old.metadata as JsonObject), uid: 'uid-r2' } });
    s.controller.consider(key);
    await s.clock.until(() => s.completed().length === 1, 5_000);
    expect(s.api.updates('r-0')).toBe(1);
    expect(refused).toEqual(['uid-r']);
    await s.controller.stop();
  });
});
