import { describe, expect, it } from 'vitest';
import { formatFieldErrors } from '../api/index.js';
import { validateModRule } from './validate-modrule.js';
import { evaluate } from './evaluate.js';
import { explainEvaluation } from './explain/index.js';
import type { JsonObject } from './json.js';
import { compileRule, type CompiledRule } from './rule.js';
import { RuleStore } from './store.js';

const cm: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'a' },
};

function rule(name: string, annotations: Record<string, string>, spec: object): CompiledRule {
  const result = validateModRule({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: 'a', annotations },
    spec,
  });
  if (!result.ok) throw new Error(formatFieldErrors(result.errors));
  return compileRule(result.modRule);
}

function reject(name: string, annotations: Record<string, string>, message?: string): CompiledRule {
  return rule(name, annotations, {
    type: 'Reject',
    match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    ...(message === undefined ? {} : { rejectMessage: message }),
  });
}

function failingPatch(name: string, annotations: Record<string, string>): CompiledRule {
  return rule(name, annotations, {
    type: 'Patch',
    match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    patch: [{ op: 'add', path: '/metadata/labels/x', value: '{{ fail "boom" }}' }],
  });
}

function run(...rules: CompiledRule[]): ReturnType<typeof evaluate> {
  const store = new RuleStore();
  for (const r of rules) store.put(r);
  return evaluate(store, { operation: 'CREATE', namespace: 'a', object: cm });
}

describe('evaluate: Reject rules by enforcement mode', () => {
  it('puts Enforce matches in rejections, Warn in warnings, Audit in audited', () => {
    const result = run(
      reject('enforced', {}, 'no {{ .Target.metadata.name }}'),
      reject('warned', { 'api.kubemod.io/enforcement': 'Warn' }, 'careful with {{ .Target.kind }}'),
      reject('audited', { 'api.kubemod.io/enforcement': 'Audit' }),
    );
    expect(result.rejections).toEqual(['a/enforced: "no cm"']);
    expect(result.warnings).toEqual(['a/warned: "careful with ConfigMap"']);
    expect(result.audited).toEqual(['a/audited']);
  });

  it('admits when only Warn and Audit rules match', () => {
    const result = run(
      reject('warned', { 'api.kubemod.io/enforcement': 'Warn' }),
      reject('audited', { 'api.kubemod.io/enforcement': 'Audit' }),
    );
    expect(result.rejections).toEqual([]);
    expect([result.warnings, result.audited]).toEqual([['a/warned'], ['a/audited']]);
  });
});

describe('evaluate: failure policy', () => {
  it('turns the failure of a Fail rule into a refusal naming the rule and the reason', () => {
    const result = run(failingPatch('strict', { 'api.kubemod.io/failure-policy': 'Fail' }));
    expect(result.failures).toMatchObject([{ rule: 'a/strict', failurePolicy: 'Fail' }]);
    expect(result.rejections).toHaveLength(1);
    expect(result.rejections[0]).toMatch(
      /^a\/strict: "could not be evaluated \(failure policy Fail\): KM3002 spec\.patch\[0\]\.value: .*boom"$/,
    );
    expect(result.patch).toEqual([]);
  });

  it('skips an Ignore rule (explicit or by default) without refusing', () => {
    const result = run(
      failingPatch('lenient', { 'api.kubemod.io/failure-policy': 'Ignore' }),
      failingPatch('default', {}),
    );
    expect(result.failures.map((f) => [f.rule, f.failurePolicy])).toEqual([
      ['a/default', 'Ignore'],
      ['a/lenient', 'Ignore'],
    ]);
    expect(result.rejections).toEqual([]);
  });

  it('does not name twice an Enforce rule that matched but whose message failed', () => {
    const result = run(
      reject('strict', { 'api.kubemod.io/failure-policy': 'Fail' }, '{{ fail "no message" }}'),
    );
    expect(result.rejections).toEqual(['a/strict']);
    expect(result.failures).toMatchObject([{ rule: 'a/strict', field: 'spec.rejectMessage' }]);
  });

  it('does not refuse a DELETE for a Patch rule (nothing to patch on a deletion)', () => {
    const store = new RuleStore();
    store.put(
      rule(
        'strict',
        { 'api.kubemod.io/failure-policy': 'Fail' },
        {
          type: 'Patch',
          admissionOperations: ['DELETE'],
          match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
          patch: [{ op: 'add', path: '/metadata/labels/x', value: '{{ fail "boom" }}' }],
        },
      ),
    );
    const result = evaluate(store, { operation: 'DELETE', namespace: 'a', object: cm });
    expect(result.failures).toMatchObject([{ rule: 'a/strict', failurePolicy: 'Fail' }]);
    expect(result.rejections).toEqual([]);
  });

  it('bounds the reason quoted in the refusal', () => {
    const result = run(
      rule(
        'long',
        { 'api.kubemod.io/failure-policy': 'Fail' },
        {
          type: 'Patch',
          match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
          patch: [
            { op: 'add', path: '/metadata/labels/x', value: `{{ fail "${'y'.repeat(900)}" }}` },
          ],
        },
      ),
    );
    expect(result.rejections[0]?.length).toBeLessThan(300);
    expect(result.rejections[0]).toMatch(/…"$/);
  });
});

describe('explain: enforcement and failure policy', () => {
  it('labels the rejection by mode and the failure by policy', () => {
    const store = new RuleStore();
    store.put(reject('warned', { 'api.kubemod.io/enforcement': 'Warn' }, 'hm'));
    store.put(reject('audited', { 'api.kubemod.io/enforcement': 'Audit' }));
    store.put(failingPatch('strict', { 'api.kubemod.io/failure-policy': 'Fail' }));
    const { explanation } = explainEvaluation(store, {
      operation: 'CREATE',
      namespace: 'a',
      object: cm,
    });
    expect(explanation.summary).toMatchObject({ rejected: 1, warned: 1, audited: 1, failed: 1 });
    const nodes = explanation.children.flatMap((c) => ('children' in c ? c.children : []));
    const labels = nodes.map((n) => n.label);
    expect(labels).toContain(
      'warns (enforcement Warn: admitted, kubectl prints the warning): a/warned: "hm"',
    );
    expect(labels).toContain('audits (enforcement Audit: admitted silently, counted): a/audited');
    expect(nodes).toContainEqual(
      expect.objectContaining({ kind: 'failure', failurePolicy: 'Fail' }),
    );
    expect(labels.some((l) => l.endsWith('(failure policy Fail: the request is refused)'))).toBe(
      true,
    );
  });
});
