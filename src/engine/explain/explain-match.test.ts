import { describe, expect, it } from 'vitest';
import { explain, kids, patchLabel, ruleNode, storeOf, type Spec } from './explain.test-support.js';
import type { MatchItemNode, RuleNode } from './schema.js';
describe('explain: match items', () => {
  const cases: [string, Spec, Partial<MatchItemNode>][] = [
    [
      'a boolean select decides',
      { select: '$.spec.replicas > 1' },
      { decision: 'boolean', result: { type: 'boolean', value: true }, matched: true },
    ],
    [
      'no values never match',
      { select: '$.metadata.labels.missing', matchValue: 'x' },
      {
        decision: 'no-values',
        result: { type: 'values', values: [], count: 0, undefinedCount: 1 },
        matched: false,
      },
    ],
    [
      'values exist without a comparison',
      { select: '$.spec.containers[*].name' },
      {
        decision: 'exists',
        result: { type: 'values', values: ['app', 'log'], count: 2, undefinedCount: 0 },
        matched: true,
      },
    ],
    [
      'All fails on an undefined element',
      { select: '$.spec.containers[*].securityContext.runAsNonRoot', matchFor: 'All' },
      { decision: 'undefined-element', matched: false, outcome: false },
    ],
    [
      'Any: the value that was accepted',
      { select: '$.spec.containers[*].image', matchValues: ['busybox:latest', 'x'] },
      { decision: 'value-accepted', decidingValue: 1, matched: true },
    ],
    [
      'Any: none accepted',
      { select: '$.spec.containers[*].image', matchRegex: '^quay\\.io/' },
      { decision: 'none-accepted', decidingValue: null, matched: false },
    ],
    [
      'All: every value accepted',
      { select: '$.spec.containers[*].image', matchRegex: ':', matchFor: 'All' },
      { decision: 'all-accepted', matched: true },
    ],
    [
      'All: the value that was refused',
      { select: '$.spec.containers[*].image', matchRegex: '^nginx', matchFor: 'All' },
      { decision: 'value-refused', decidingValue: 1, matched: false },
    ],
    [
      'negate turns the outcome around',
      { select: '$.metadata.labels.app', matchValue: 'web', negate: true },
      { decision: 'value-accepted', outcome: true, matched: false, negate: true },
    ],
  ];
  it.each(cases)('%s', (_name, item, expected) => {
    const doc = explain(storeOf([['a', 'r', patchLabel([item])]]));
    const [node] = kids(ruleNode(doc, 'a/r'), 'match');
    expect(node).toMatchObject({ ...expected, field: 'spec.match[0]', select: item.select });
    expect(node?.status).toBe(expected.matched === true ? 'matched' : 'not-matched');
    expect(node?.label).toContain(`spec.match[0] ${String(item.select)}`);
  });

  it('records what items compare with, and stops at the first item that does not match', () => {
    const doc = explain(
      storeOf([
        [
          'a',
          'r',
          patchLabel([
            { select: '$.kind', matchValue: 'Pod' },
            { select: '$.metadata.name', matchValues: ['api', 'db'], matchRegex: '^a' },
            { select: '$.spec.replicas', matchValue: '3' },
          ]),
        ],
      ]),
    );
    const rule = ruleNode(doc, 'a/r');
    expect(rule).toMatchObject({ status: 'not-matched', matched: false, tier: 0, step: null });
    expect(kids(rule, 'match').map((m) => m.status)).toEqual([
      'matched',
      'not-matched',
      'not-evaluated',
    ]);
    const [, second, third] = kids(rule, 'match');
    expect(second).toMatchObject({
      matchValues: ['api', 'db'],
      matchRegex: '^a',
      matchValue: null,
      result: { type: 'values', values: ['web'], count: 1 },
    });
    expect(second?.label).toBe(
      'spec.match[1] $.metadata.name in ["api", "db"] and =~ /^a/: got web → not matched (no value accepted)',
    );
    expect(third).toMatchObject({ result: null, matched: null, outcome: null });
    expect(kids(rule, 'operation')).toEqual([]);
  });
});

describe('explain: rules that are not candidates', () => {
  it('says which index skipped them: namespace, kind, operation', () => {
    const store = storeOf(
      [
        ['b', 'other-namespace', patchLabel([{ select: '$.kind' }])],
        ['a', 'services-only', patchLabel([{ select: '$.kind', matchValue: 'Service' }])],
        [
          'a',
          'deletes-only',
          { ...patchLabel([{ select: '$.kind' }]), admissionOperations: ['DELETE'] },
        ],
        [
          'kubemod-system',
          'team-only',
          { ...patchLabel([{ select: '$.kind' }]), targetNamespaceRegex: '^team-' },
        ],
        ['kubemod-system', 'cluster-objects', patchLabel([{ select: '$.kind' }])],
        ['a', 'candidate', patchLabel([{ select: '$.kind' }])],
      ],
      'kubemod-system',
    );
    const doc = explain(store);
    const reason = (key: string): RuleNode['skipped'] => ruleNode(doc, key).skipped;
    expect(reason('b/other-namespace')).toEqual({
      reason: 'namespace',
      message:
        'a rule of namespace b applies only to objects of that namespace; the object is in a',
    });
    expect(reason('a/services-only')).toEqual({
      reason: 'kind',
      message:
        'its match accepts only kind "Service" (literal $.kind criteria); the object is a Pod',
    });
    expect(reason('a/deletes-only')).toEqual({
      reason: 'operation',
      message: 'admissionOperations is DELETE; the request is CREATE',
    });
    expect(reason('kubemod-system/team-only')?.message).toBe(
      'targetNamespaceRegex "^team-" does not match the object\'s namespace a',
    );
    expect(reason('kubemod-system/cluster-objects')?.reason).toBe('namespace');
    expect(ruleNode(doc, 'a/candidate')).toMatchObject({ status: 'applied', skipped: null });
    expect(doc.summary).toMatchObject({ rules: 6, candidates: 1, skipped: 5 });
    // Candidates first (visiting order), then the skipped rules.
    expect(doc.children[0]).toMatchObject({ rule: 'a/candidate' });
    expect(ruleNode(doc, 'a/services-only').label).toBe(
      'a/services-only · Patch · tier 0: skipped by kind: its match accepts only kind "Service" (literal $.kind criteria); the object is a Pod',
    );
  });
});
