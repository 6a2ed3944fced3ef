import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeLabel, createMetrics, operationLabel } from './metrics.js';

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
    for (let i = 0; i < 100; i++) metrics.rulePatched(`team/gone-${String(i)}`);
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
