import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuleStore } from '../engine/store.js';
import { makeRule } from '../engine/test-rules.js';
import { codeLabel, createMetrics, operationLabel } from './metrics.js';
import { OTHER_RULE_LABEL } from './rule-labels.js';

describe('metric labels', () => {
  it('maps the request-controlled operation onto a fixed set', () => {
    for (const op of ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'unknown']) {
      expect(operationLabel(op)).toBe(op);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (op) => {
        expect(['CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'unknown', 'other']).toContain(
          operationLabel(op),
        );
      }),
    );
    expect(operationLabel('create')).toBe('other');
    expect(operationLabel('x'.repeat(1_000_000))).toBe('other');
  });

  it('keeps catalog codes and maps anything else to other', () => {
    expect(codeLabel('KM5002')).toBe('KM5002');
    expect(codeLabel('KM50020')).toBe('other');
    expect(codeLabel('boom')).toBe('other');
  });

  it('drops the per-rule series of rules that no longer exist', async () => {
    const metrics = createMetrics();
    const live = new Set(['team/kept']);
    metrics.setRulePresence((rule) => live.has(rule));
    for (let i = 0; i < 50; i++) metrics.rulePatched(`team/gone-${String(i)}`);
    metrics.rulePatched('team/kept');
    metrics.ruleFailed('team/gone-1', 'KM5002');
    metrics.ruleRejected('team/gone-2');
    metrics.ruleResult('team/gone-3', 'warned');
    metrics.ruleResult('team/kept', 'audited');
    const text = await metrics.render();
    expect(text).toContain('kubemod_rule_patches_total{rule="team/kept"} 1');
    expect(text).toContain('kubemod_rule_results_total{rule="team/kept",result="audited"} 1');
    expect(text).not.toContain('gone-');
  });

  it('drops the series of rules deleted from the store at once, without a scrape', async () => {
    const metrics = createMetrics();
    // The operator's wiring (src/controller/operator.ts): the store tells metrics what it deletes.
    const store = new RuleStore({
      onDelete: (key) => {
        metrics.forgetRule(key);
      },
    });
    const N = 1_000;
    for (let i = 0; i < N; i++) {
      const ns = `tenant-${String(i % 20)}`;
      store.put(
        makeRule(ns, `gone-${String(i)}`, { type: 'Reject', match: [{ select: '$.kind' }] }),
      );
      metrics.rulePatched(`${ns}/gone-${String(i)}`);
      metrics.ruleRejected(`${ns}/gone-${String(i)}`);
      metrics.ruleFailed(`${ns}/gone-${String(i)}`, 'KM5002');
      metrics.ruleResult(`${ns}/gone-${String(i)}`, 'warned');
    }
    for (let i = 0; i < N; i++) store.delete(`tenant-${String(i % 20)}`, `gone-${String(i)}`);
    // Read the counters directly: render() (a scrape) is what used to prune them.
    for (const name of [
      'kubemod_rule_patches_total',
      'kubemod_rule_rejections_total',
      'kubemod_rule_errors_total',
      'kubemod_rule_results_total',
    ]) {
      const values = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
      expect(
        values.filter((v) => v.labels.rule !== OTHER_RULE_LABEL),
        name,
      ).toEqual([]);
    }
    expect(metrics.ruleLabels.rules()).toEqual([]);
  });

  it('gives at most maxRuleSeries rules series of their own and counts the rest as other', async () => {
    const metrics = createMetrics({ maxRuleSeries: 20 });
    // One namespace takes at most a tenth of the places: tenant a gets 2 of its 5 rules.
    for (let i = 0; i < 5; i++) metrics.rulePatched(`a/r${String(i)}`);
    for (let i = 0; i < 30; i++) metrics.ruleResult(`ns-${String(i)}/r`, 'rejected');
    metrics.ruleFailed('ns-29/r', 'KM3002');
    const text = await metrics.render();
    const rules = new Set([...text.matchAll(/rule="([^"]*)"/g)].map((m) => m[1]));
    expect(rules.size).toBe(21);
    expect(rules.has('other')).toBe(true);
    expect(text).toContain('kubemod_rule_patches_total{rule="a/r0"} 1');
    expect(text).toContain('kubemod_rule_patches_total{rule="a/r1"} 1');
    expect(text).toContain('kubemod_rule_patches_total{rule="other"} 3');
    // 18 places left for the 30 namespaces: 12 of them fold into other.
    expect(text).toContain('kubemod_rule_results_total{rule="other",result="rejected"} 12');
    expect(text).toContain('kubemod_rule_errors_total{rule="other",code="KM3002"} 1');
    // A rule that goes frees its place for the next one.
    metrics.forgetRule('ns-0/r');
    metrics.ruleResult('new/r', 'patched');
    expect(await metrics.render()).toContain(
      'kubemod_rule_results_total{rule="new/r",result="patched"} 1',
    );
  });

  it('keeps /metrics small whatever operations and codes are reported', async () => {
    const metrics = createMetrics();
    const huge = 'X'.repeat(1024 * 1024);
    for (let i = 0; i < 50; i++) {
      metrics.observeRequest('dragnet', `${huge}${String(i)}`, 'allowed', 0.001);
      metrics.ruleFailed('team/rule', `${huge}${String(i)}`);
    }
    const text = await metrics.render();
    expect(text.length).toBeLessThan(20_000);
    expect(text).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="other",result="allowed"} 50',
    );
    expect(text).toContain('kubemod_rule_errors_total{rule="team/rule",code="other"} 50');
  });
});
