import { describe, expect, it } from 'vitest';
import { validateModRule } from '../../engine/validate-modrule.js';
import { compileRule } from '../../engine/rule.js';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import { failClosedCandidates, notEvaluatedRefusals } from './fail-closed.js';

describe('refusing requests that cannot be evaluated', () => {
  const store = new RuleStore();
  const spec = (type: 'Patch' | 'Reject'): Record<string, unknown> => ({
    type,
    admissionOperations: ['CREATE', 'DELETE'],
    match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    ...(type === 'Patch' ? { patch: [{ op: 'remove', path: '/data' }] } : {}),
  });
  store.put(makeRule('a', 'plain', spec('Reject')));

  it('finds no Fail rule among rules without the annotation', () => {
    expect(
      failClosedCandidates(store, { namespace: 'a', kind: 'ConfigMap', operation: 'CREATE' }),
    ).toEqual([]);
  });

  it('finds the Fail rules that apply, except Patch rules on a DELETE', () => {
    const strict = new RuleStore();
    for (const type of ['Patch', 'Reject'] as const) {
      const checked = validateModRule({
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: {
          name: type.toLowerCase(),
          namespace: 'a',
          annotations: { 'api.kubemod.io/failure-policy': 'Fail' },
        },
        spec: spec(type),
      });
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      strict.put(compileRule(checked.modRule));
    }
    const query = { namespace: 'a', kind: 'ConfigMap' } as const;
    expect(failClosedCandidates(strict, { ...query, operation: 'CREATE' })).toEqual([
      'a/patch',
      'a/reject',
    ]);
    expect(failClosedCandidates(strict, { ...query, operation: 'DELETE' })).toEqual(['a/reject']);
  });

  it('names at most five rules and bounds the reason', () => {
    const rules = Array.from({ length: 7 }, (_, i) => `a/r${String(i)}`);
    const out = notEvaluatedRefusals(rules, 'x'.repeat(1000));
    expect(out).toHaveLength(6);
    expect(out[0]).toMatch(/^a\/r0: "could not be evaluated \(failure policy Fail\): x+…"$/);
    expect(out[0]?.length).toBeLessThan(300);
    expect(out[5]).toBe('(+2 more)');
  });
});
