import { describe, expect, it } from 'vitest';
import { validateModRule } from '../engine/validate-modrule.js';
import { compileRule } from '../engine/rule.js';

const rejectSpec = {
  type: 'Reject',
  match: [{ select: '$.kind', matchValue: 'Deployment' }],
  rejectMessage: 'no',
};
const patchSpec = {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'Deployment' }],
  patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
};

function check(spec: unknown, annotations: unknown): ReturnType<typeof validateModRule> {
  return validateModRule({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'r', namespace: 'team', annotations },
    spec,
  });
}

function errorsOf(spec: unknown, annotations: unknown): string[] {
  const result = check(spec, annotations);
  return result.ok ? [] : result.errors.map((e) => `${e.field}: ${e.message}`);
}

describe('api.kubemod.io/enforcement and api.kubemod.io/failure-policy at admission', () => {
  it.each(['Enforce', 'Warn', 'Audit'])('accepts enforcement %s on a Reject rule', (mode) => {
    const result = check(rejectSpec, { 'api.kubemod.io/enforcement': mode });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(compileRule(result.modRule).enforcement).toBe(mode);
  });

  it.each(['Ignore', 'Fail'])('accepts failure-policy %s on Reject and Patch rules', (policy) => {
    for (const spec of [rejectSpec, patchSpec]) {
      const result = check(spec, { 'api.kubemod.io/failure-policy': policy });
      expect(result.ok).toBe(true);
      if (result.ok) expect(compileRule(result.modRule).failurePolicy).toBe(policy);
    }
  });

  it('defaults to Enforce and Ignore, and keeps no other annotation', () => {
    const result = check(rejectSpec, { 'example.com/other': 'x' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.modRule.metadata.annotations).toBeUndefined();
    const rule = compileRule(result.modRule);
    expect([rule.enforcement, rule.failurePolicy]).toEqual(['Enforce', 'Ignore']);
  });

  it('refuses an unknown value (case-sensitive), naming the annotation', () => {
    expect(errorsOf(rejectSpec, { 'api.kubemod.io/enforcement': 'warn' })).toEqual([
      'metadata.annotations[api.kubemod.io/enforcement]: must be one of Enforce, Warn, Audit, got "warn"',
    ]);
    expect(errorsOf(patchSpec, { 'api.kubemod.io/failure-policy': 'Closed' })).toEqual([
      'metadata.annotations[api.kubemod.io/failure-policy]: must be one of Ignore, Fail, got "Closed"',
    ]);
    expect(errorsOf(rejectSpec, { 'api.kubemod.io/enforcement': 'x'.repeat(500) })[0]).toMatch(
      /got "x{40}…"$/,
    );
  });

  it('refuses enforcement on a Patch rule', () => {
    expect(errorsOf(patchSpec, { 'api.kubemod.io/enforcement': 'Warn' })).toEqual([
      'metadata.annotations[api.kubemod.io/enforcement]: only applies to Reject rules (a Patch rule never refuses a request, so it has nothing to warn about or audit); remove the annotation',
    ]);
  });

  it('refuses failure-policy Fail on a Warn or Audit rule, not on an Enforce one', () => {
    for (const mode of ['Warn', 'Audit']) {
      expect(
        errorsOf(rejectSpec, {
          'api.kubemod.io/enforcement': mode,
          'api.kubemod.io/failure-policy': 'Fail',
        }),
      ).toEqual([
        `metadata.annotations[api.kubemod.io/failure-policy]: Fail refuses requests, which a rule with api.kubemod.io/enforcement: ${mode} never does; use Ignore, or set the enforcement to Enforce`,
      ]);
    }
    const enforce = check(rejectSpec, {
      'api.kubemod.io/enforcement': 'Enforce',
      'api.kubemod.io/failure-policy': 'Fail',
    });
    expect(enforce.ok).toBe(true);
  });
});
