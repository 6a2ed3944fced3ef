import { describe, expect, it } from 'vitest';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import { createSilentLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { registerAuditMetrics } from '../run/audit-metrics.js';
import type { AuditSessionResult } from './audit-session.js';
import { RecordingReporter } from '../run/fake-audit-api.test-support.js';
import { createPeriodicAudit } from './periodic-audit.js';

function session(
  perRule: Record<string, number>,
  unreadableKinds: string[] = [],
  rules = ['shop/a', 'shop/b'],
): AuditSessionResult {
  return {
    result: {
      audited: 10,
      ignored: 0,
      findings: [],
      nonConforming: Object.values(perRule).reduce((a, b) => a + b, 0),
      perRule: new Map(
        Object.entries(perRule).map(([rule, n]) => [
          rule,
          { nonConforming: n, patch: n, reject: 0, failures: 0 },
        ]),
      ),
      failures: [],
      errors: [],
      unreadable: unreadableKinds.map((kind) => ({
        resource: kind.toLowerCase(),
        kind,
        namespace: undefined,
        status: 403,
        reason: 'forbidden',
      })),
    },
    rules,
    unreadable: [],
    notes: [],
  };
}

describe('periodic audit', () => {
  it('publishes per-rule counts to status and metrics from the leader only, then drops gone rules', async () => {
    const store = new RuleStore();
    const patch = [{ op: 'add', path: '/metadata/labels/x', value: 'y' }];
    store.put(makeRule('shop', 'a', { type: 'Patch', match: [{ select: '$.kind' }], patch }));
    store.put(makeRule('shop', 'b', { type: 'Patch', match: [{ select: '$.kind' }], patch }));
    store.put(
      makeRule('shop', 'create-only', {
        type: 'Patch',
        admissionOperations: ['CREATE'],
        match: [{ select: '$.kind' }],
        patch,
      }),
    );
    const metrics = createMetrics();
    const reporter = new RecordingReporter();
    const leader = { value: false };
    let clock = Date.parse('2026-03-04T05:06:07Z');
    let audits = 0;
    const sleeps: (() => void)[] = [];
    const periodic = createPeriodicAudit({
      intervalMs: 60_000,
      isLeader: () => leader.value,
      audit: () => {
        audits++;
        return Promise.resolve(session({ 'shop/a': 3 }));
      },
      store: () => store,
      reporter,
      metrics: registerAuditMetrics(metrics.registry, (rule) => {
        const [ns = '', name = ''] = rule.split('/');
        return store.get(ns, name) !== undefined;
      }),
      logger: createSilentLogger(),
      now: () => clock,
      delay: (ms, signal) =>
        new Promise<void>((resolve) => {
          clock += ms;
          sleeps.push(resolve);
          signal.addEventListener('abort', () => {
            resolve();
          });
        }),
    });
    const tick = async (): Promise<void> => {
      for (let i = 0; i < 20 && sleeps.length === 0; i++)
        await new Promise((r) => setTimeout(r, 1));
      sleeps.shift()?.();
      for (let i = 0; i < 20 && sleeps.length === 0; i++)
        await new Promise((r) => setTimeout(r, 1));
    };
    periodic.start();
    await tick();
    expect(audits).toBe(0);
    leader.value = true;
    await tick();
    expect(audits).toBe(1);
    expect(reporter.statuses).toEqual([
      { rule: 'shop/a', status: { nonConforming: 3, lastAuditTime: '2026-03-04T05:06:17Z' } },
      { rule: 'shop/b', status: { nonConforming: 0, lastAuditTime: '2026-03-04T05:06:17Z' } },
    ]);
    const text = await metrics.render();
    expect(text).toContain('kubemod_audit_nonconforming_objects{rule="shop/a"} 3');
    expect(text).toContain('kubemod_audit_nonconforming_objects{rule="shop/b"} 0');
    expect(text).toContain('kubemod_audit_objects 10');
    // Not again before the interval has passed.
    await tick();
    expect(audits).toBe(1);
    store.delete('shop', 'a');
    expect(await metrics.render()).not.toContain('rule="shop/a"');
    await periodic.stop();
    expect(periodic.runs).toBe(1);
  });

  it('gives no count to rules whose resources could not all be read, nor to rules without an author', async () => {
    const store = new RuleStore();
    const patch = [{ op: 'add', path: '/metadata/labels/x', value: 'y' }];
    const forKind = (kind: string): object[] => [{ select: '$.kind', matchValue: kind }];
    store.put(makeRule('shop', 'cm', { type: 'Patch', match: forKind('ConfigMap'), patch }));
    store.put(makeRule('shop', 'secret', { type: 'Patch', match: forKind('Secret'), patch }));
    store.put(makeRule('shop', 'any', { type: 'Patch', match: [{ select: '$.kind' }], patch }));
    const metrics = createMetrics();
    const reporter = new RecordingReporter();
    let audits = 0;
    const periodic = createPeriodicAudit({
      intervalMs: 60_000,
      isLeader: () => true,
      audit: () => {
        audits++;
        return Promise.resolve(
          session(
            { 'shop/cm': 2, 'shop/secret': 1 },
            ['Secret'],
            ['shop/cm', 'shop/secret', 'shop/any'],
          ),
        );
      },
      store: () => store,
      reporter,
      metrics: registerAuditMetrics(metrics.registry, () => true),
      logger: createSilentLogger(),
      // shop/cm has no recorded author: no count, whatever the audit found.
      uncountable: (rule) => (rule.key === 'shop/cm' ? 'no author is recorded' : undefined),
      now: () => Date.parse('2026-03-04T05:06:07Z'),
      delay: (_ms, signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            resolve();
          });
        }),
    });
    periodic.start();
    for (let i = 0; i < 100 && reporter.statuses.length < 3; i++)
      await new Promise((r) => setTimeout(r, 5));
    await periodic.stop();
    expect(audits).toBe(1);
    const byRule = Object.fromEntries(
      reporter.statuses.map((s) => [s.rule, s.status.nonConforming]),
    );
    expect(byRule).toEqual({ 'shop/cm': null, 'shop/secret': null, 'shop/any': null });
    const text = await metrics.render();
    expect(text).not.toContain('rule="shop/cm"');
    expect(text).not.toContain('rule="shop/secret"');
    expect(text).toContain('kubemod_audit_unreadable_collections 1');
  });

  it('publishes the policy reports after the statuses, and not when leadership was lost', async () => {
    const store = new RuleStore();
    const patch = [{ op: 'add', path: '/metadata/labels/x', value: 'y' }];
    store.put(makeRule('shop', 'a', { type: 'Patch', match: [{ select: '$.kind' }], patch }));
    const reporter = new RecordingReporter();
    const order: string[] = [];
    const leader = { value: true };
    let clock = 0;
    const periodic = createPeriodicAudit({
      intervalMs: 10,
      isLeader: () => leader.value,
      audit: () => {
        order.push('audit');
        // The second run ends after this replica stopped leading: nothing is published.
        if (order.filter((o) => o === 'audit').length === 2) leader.value = false;
        return Promise.resolve(session({ 'shop/a': 1 }, [], ['shop/a']));
      },
      store: () => store,
      reporter: {
        patchStatus: (ns, name, status) => {
          order.push('status');
          return reporter.patchStatus(ns, name, status);
        },
        event: (rule, event) => reporter.event(rule, event),
      },
      metrics: registerAuditMetrics(createMetrics().registry, () => true),
      logger: createSilentLogger(),
      publishReports: (published) => {
        order.push(`reports ${String(published.result.audited)}`);
        return Promise.resolve();
      },
      now: () => clock,
      delay: (ms) =>
        new Promise<void>((resolve) => {
          clock += ms;
          setTimeout(resolve, 1);
        }),
    });
    periodic.start();
    for (let i = 0; i < 5000 && order.filter((o) => o === 'audit').length < 2; i++)
      await new Promise((r) => setTimeout(r, 2));
    await periodic.stop();
    expect(order.slice(0, 4)).toEqual(['audit', 'status', 'reports 10', 'audit']);
    expect(order.filter((o) => o.startsWith('reports'))).toHaveLength(1);
  });
});
