import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RuleLabels } from '../../observability/rule-labels.js';
import { registerAuditMetrics } from './audit-metrics.js';

describe('registerAuditMetrics with the per-rule series cap', () => {
  it('folds the rules past the cap into other and drops a forgotten rule at once', async () => {
    const registry = new Registry();
    const labels = new RuleLabels(20); // two places per namespace
    const metrics = registerAuditMetrics(
      registry,
      () => true,
      { audit: true, apply: true },
      labels,
    );
    metrics.setAuditResult(
      new Map([
        ['a/r1', 1],
        ['a/r2', 2],
        ['a/r3', 3],
        ['a/r4', 4],
      ]),
      { audited: 10, unreadable: 0, completedAtMs: 0 },
    );
    metrics.appliedToExisting('b/r1', 'updated');
    const text = await registry.metrics();
    expect(text).toContain('kubemod_audit_nonconforming_objects{rule="a/r1"} 1');
    expect(text).toContain('kubemod_audit_nonconforming_objects{rule="a/r2"} 2');
    expect(text).toContain('kubemod_audit_nonconforming_objects{rule="other"} 7');
    expect(text).toContain('kubemod_apply_existing_objects_total{rule="b/r1",result="updated"} 1');
    labels.forget('b/r1');
    const values = (await registry.getSingleMetric('kubemod_apply_existing_objects_total')?.get())
      ?.values;
    expect(values).toEqual([]);
  });
});
