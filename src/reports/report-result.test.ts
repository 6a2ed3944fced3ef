import { describe, expect, it } from 'vitest';
import { ENFORCEMENT_ANNOTATION, enforcementOf, type EnforcementMode } from '../api/annotations.js';
import { verdictOf } from '../audit/run/object-verdict.js';
import { evaluate } from '../engine/evaluate.js';
import type { JsonObject } from '../engine/json.js';
import type { CompiledRule } from '../engine/rule.js';
import { RuleStore } from '../engine/store.js';
import { makeRule } from '../engine/test-rules.js';
import { MAX_MESSAGE_LENGTH, resultsForObject, type ReportResult } from './report-result.js';

const configMap = (labels: Record<string, string>): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'shop', uid: 'u-1', labels },
});
const subject = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'cm', uid: 'u-1' };

const rejectBad = (name: string, message = 'bad {{ .Target.metadata.name }}'): CompiledRule =>
  makeRule('shop', name, {
    type: 'Reject',
    rejectMessage: message,
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.labels.bad', matchValue: 'true' },
    ],
  });
const owner = makeRule('shop', 'owner', {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
  patch: [
    { op: 'add', path: '/metadata/labels/owner', value: 'platform' },
    { op: 'add', path: '/metadata/labels/tier', value: 'web' },
  ],
});

function run(
  object: JsonObject,
  rules: readonly CompiledRule[],
  modes: Record<string, EnforcementMode> = {},
): ReportResult[] {
  const store = new RuleStore();
  for (const rule of rules) store.put(rule);
  const evaluation = evaluate(store, { operation: 'UPDATE', namespace: 'shop', object });
  return resultsForObject(subject, rules, evaluation, verdictOf(evaluation), (rule) =>
    enforcementOf({ [ENFORCEMENT_ANNOTATION]: modes[rule.key] ?? 'Enforce' }),
  );
}

describe('resultsForObject', () => {
  it('gives one result per rule: fail for a rejecting rule, warn for a Warn rule, pass otherwise', () => {
    const results = run(
      configMap({ bad: 'true', owner: 'platform', tier: 'web' }),
      [rejectBad('enforced'), rejectBad('warned'), rejectBad('audited'), owner],
      { 'shop/warned': 'Warn', 'shop/audited': 'Audit' },
    );
    expect(results.map((r) => [r.policy, r.rule, r.result])).toEqual([
      ['shop/enforced', 'enforced', 'fail'],
      ['shop/warned', 'warned', 'warn'],
      ['shop/audited', 'audited', 'fail'],
      ['shop/owner', 'owner', 'pass'],
    ]);
    expect(results[0]?.message).toBe('bad cm');
    expect(results[0]?.subject).toEqual(subject);
    expect(results.map((r) => r.properties.enforcement)).toEqual([
      'Enforce',
      'Warn',
      'Audit',
      undefined,
    ]);
  });

  it('passes a Reject rule that does not match', () => {
    const [result] = run(configMap({}), [rejectBad('enforced')]);
    expect(result).toMatchObject({ result: 'pass', properties: { ruleType: 'Reject' } });
  });

  it('fails a Patch rule that would change the object, with its operation count', () => {
    const [result] = run(configMap({ owner: 'someone' }), [owner]);
    expect(result?.result).toBe('fail');
    expect(result?.properties).toEqual({ ruleType: 'Patch', patchOperations: '2' });
    expect(result?.message).toContain('an update would patch the object (2 operation(s)');
    expect(result?.message).toContain('/metadata/labels/owner');
  });

  it('reports a rule failure as error, with its code and field', () => {
    const store = new RuleStore();
    store.put(owner);
    const evaluation = evaluate(store, {
      operation: 'UPDATE',
      namespace: 'shop',
      object: configMap({}),
    });
    const verdict = {
      ...verdictOf(evaluation),
      failures: [
        {
          rule: 'shop/owner',
          namespace: 'shop',
          name: 'owner',
          field: 'spec.patch[0].value',
          code: 'KM3003',
          message: 'template output too large',
          failurePolicy: 'Ignore' as const,
        },
      ],
    };
    const [result] = resultsForObject(subject, [owner], evaluation, verdict, () => 'Enforce');
    expect(result).toMatchObject({
      result: 'error',
      message: 'KM3003: template output too large',
      properties: { ruleType: 'Patch', errorCode: 'KM3003', field: 'spec.patch[0].value' },
    });
  });

  it('cuts long messages', () => {
    const [result] = run(configMap({ bad: 'true' }), [rejectBad('long', 'x'.repeat(5000))]);
    expect(result?.message).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(result?.message.endsWith('…')).toBe(true);
  });

  it('reads Warn and Audit texts where the engine keeps them apart from rejections', () => {
    const rules = [rejectBad('warned'), rejectBad('audited'), rejectBad('quiet')];
    const evaluation = {
      rejections: [],
      warnings: ['shop/warned: "bad cm"'],
      audited: ['shop/audited: "also bad"'],
      applied: [],
    };
    const verdict = { failures: [], patchingRules: [], patch: [] };
    const modes: Record<string, EnforcementMode> = {
      'shop/warned': 'Warn',
      'shop/audited': 'Audit',
    };
    const results = resultsForObject(
      subject,
      rules,
      evaluation,
      verdict,
      (rule) => modes[rule.key] ?? 'Enforce',
    );
    expect(results.map((r) => [r.rule, r.result, r.message])).toEqual([
      ['warned', 'warn', 'bad cm'],
      ['audited', 'fail', 'also bad'],
      ['quiet', 'pass', 'an update would not be rejected'],
    ]);
  });
});
