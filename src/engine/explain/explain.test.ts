import { describe, expect, it } from 'vitest';
import { evaluate, type EvaluationRequest } from '../evaluate.js';
import type { JsonObject } from '../json.js';
import { RuleStore } from '../store.js';
import { makeRule } from '../test-rules.js';
import { explainEvaluation } from './explain.js';
import type {
  ExplainDocument,
  ExplainNode,
  FailureNode,
  MatchItemNode,
  OperationNode,
  PatchNode,
  RuleNode,
} from './schema.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'a', labels: { app: 'web', tier: 'front' } },
  spec: {
    replicas: 3,
    containers: [
      { name: 'app', image: 'nginx:1.25', securityContext: { runAsNonRoot: true } },
      { name: 'log', image: 'busybox:latest' },
    ],
  },
};

type Spec = Record<string, unknown>;

function storeOf(rules: [string, string, Spec][], clusterNamespace?: string): RuleStore {
  const store = new RuleStore(clusterNamespace === undefined ? {} : { clusterNamespace });
  for (const [namespace, name, spec] of rules) store.put(makeRule(namespace, name, spec));
  return store;
}

/** Explains, and checks the result is the one evaluate() gives without explaining. */
function explain(store: RuleStore, request: Partial<EvaluationRequest> = {}): ExplainDocument {
  const full: EvaluationRequest = {
    operation: 'CREATE',
    namespace: 'a',
    object: pod,
    clock: () => 0,
    ...request,
  };
  const { result, explanation } = explainEvaluation(store, full);
  expect(result).toEqual(evaluate(store, full));
  return explanation;
}

function ruleNode(doc: ExplainDocument, key: string): RuleNode {
  const node = doc.children.find((c): c is RuleNode => c.kind === 'rule' && c.rule === key);
  if (node === undefined) throw new Error(`no node for ${key}`);
  return node;
}

function kids<K extends ExplainNode['kind']>(
  node: { children: readonly ExplainNode[] },
  kind: K,
): Extract<ExplainNode, { kind: K }>[] {
  return node.children.filter((c): c is Extract<ExplainNode, { kind: K }> => c.kind === kind);
}

const patchLabel = (match: Spec[]): Spec => ({
  type: 'Patch',
  match,
  patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
});

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

describe('explain: patch operations', () => {
  it('lists each operation as rendered: select results, filled placeholders, template output', () => {
    const doc = explain(
      storeOf([
        [
          'a',
          'tag',
          {
            type: 'Patch',
            match: [{ select: '$.kind', matchValue: 'Pod' }],
            patch: [
              {
                op: 'replace',
                select: '$.spec.containers[*].image',
                path: '/spec/containers/#0/image',
                value: 'mirror/{{ .SelectedItem }}',
              },
              { op: 'remove', path: '/metadata/labels/tier' },
            ],
          },
        ],
      ]),
    );
    const rule = ruleNode(doc, 'a/tag');
    expect(rule).toMatchObject({ status: 'applied', step: 1, order: 1, matched: true });
    const [replace, remove] = kids(rule, 'operation');
    expect(replace).toMatchObject({
      status: 'applied',
      field: 'spec.patch[0]',
      select: '$.spec.containers[*].image',
      path: '/spec/containers/#0/image',
      value: 'mirror/{{ .SelectedItem }}',
      selectCount: 2,
    });
    expect(kids(replace ?? { children: [] }, 'patch')).toEqual([
      expect.objectContaining({
        op: 'replace',
        path: '/spec/containers/0/image',
        selected: 'nginx:1.25',
        keyParts: [0],
        rendered: 'mirror/nginx:1.25',
        value: '"mirror/nginx:1.25"',
      }),
      expect.objectContaining({ path: '/spec/containers/1/image', keyParts: [1] }),
    ]);
    const [first] = kids(replace ?? { children: [] }, 'patch');
    expect(first?.label).toBe(
      'replace /spec/containers/0/image = "mirror/nginx:1.25" (template gave: mirror/nginx:1.25; selected: nginx:1.25; keys: [0])',
    );
    expect(kids(remove ?? { children: [] }, 'patch')).toEqual([
      expect.objectContaining({ op: 'remove', path: '/metadata/labels/tier', value: null }),
    ]);
  });

  it('numbers the steps tier by tier; a later tier sees the earlier tiers output', () => {
    const add = (tier: number, label: string, value: string): Spec => ({
      type: 'Patch',
      executionTier: tier,
      match: [{ select: '$.kind' }],
      patch: [{ op: 'add', path: `/metadata/labels/${label}`, value }],
    });
    const doc = explain(
      storeOf([
        ['a', 'late', add(2, 'late', 'saw {{ .Target.metadata.labels.early }}')],
        ['a', 'early', add(1, 'early', 'one')],
      ]),
    );
    expect(ruleNode(doc, 'a/early')).toMatchObject({ tier: 1, step: 1, order: 1 });
    const late = ruleNode(doc, 'a/late');
    expect(late).toMatchObject({ tier: 2, step: 2, order: 2 });
    expect(late.label).toBe('a/late · Patch · tier 2 · step 2: applied');
    const [op] = kids(late, 'operation');
    expect(kids(op ?? { children: [] }, 'patch')[0]?.rendered).toBe('saw one');
  });
});

describe('explain: failures', () => {
  it('names the failing item, operation and code; the other rules still apply', () => {
    const doc = explain(
      storeOf([
        ['a', 'bad-select', patchLabel([{ select: '$.kind && true' }])],
        [
          'a',
          'bad-template',
          {
            type: 'Patch',
            match: [{ select: '$.kind' }],
            patch: [
              { op: 'add', path: '/metadata/labels/t', value: '{{ index .Target.spec.items 5 }}' },
            ],
          },
        ],
        [
          'a',
          'bad-apply',
          {
            type: 'Patch',
            match: [{ select: '$.kind' }],
            patch: [
              { op: 'add', path: '/metadata/labels/partial', value: 'rolled back' },
              { op: 'replace', path: '/spec/missing', value: 'x' },
            ],
          },
        ],
        ['a', 'good', patchLabel([{ select: '$.kind' }])],
      ]),
    );
    const select = ruleNode(doc, 'a/bad-select');
    expect(select.status).toBe('failed');
    expect(kids(select, 'match')[0]?.status).toBe('failed');
    expect(kids(select, 'failure')[0]).toMatchObject({
      field: 'spec.match[0].select',
      code: 'KM1002',
    });
    const template = ruleNode(doc, 'a/bad-template');
    expect(kids(template, 'operation')[0]?.status).toBe('failed');
    expect(kids(template, 'failure')[0]).toMatchObject({
      field: 'spec.patch[0].value',
      code: 'KM3002',
    });
    const apply = ruleNode(doc, 'a/bad-apply');
    expect(apply.status).toBe('failed');
    expect(kids(apply, 'operation').map((o: OperationNode) => o.status)).toEqual([
      'not-applied',
      'failed',
    ]);
    const failure: FailureNode | undefined = kids(apply, 'failure')[0];
    expect(failure?.code).toBe('KM4003');
    expect(failure?.label).toMatch(/^failed at spec\.patch\[1\]\S* \[KM4003\]: /);
    expect(ruleNode(doc, 'a/good')).toMatchObject({ status: 'applied', step: 1 });
    expect(doc.summary).toMatchObject({ applied: 1, failed: 3 });
  });

  it('shows the work meter still cutting off a runaway template (KM5002)', () => {
    const bomb = '{{ range until 1000 }}{{ range until 1000 }}xxxxxxxxxx{{ end }}{{ end }}';
    const doc = explain(
      storeOf([
        [
          'a',
          'bomb',
          {
            type: 'Patch',
            match: [{ select: '$.kind' }],
            patch: [{ op: 'add', path: '/metadata/labels/b', value: bomb }],
          },
        ],
      ]),
    );
    expect(kids(ruleNode(doc, 'a/bomb'), 'failure')[0]).toMatchObject({
      field: 'spec.patch[0].value',
      code: 'KM5002',
    });
  });
});

describe('explain: rejections', () => {
  it('shows the rendered message; a message that fails still rejects, with its failure', () => {
    const doc = explain(
      storeOf([
        [
          'a',
          'msg',
          {
            type: 'Reject',
            match: [{ select: '$.kind', matchValue: 'Pod' }],
            rejectMessage: 'no {{ .Target.kind }} here',
          },
        ],
        ['a', 'plain', { type: 'Reject', match: [{ select: '$.kind' }] }],
        [
          'a',
          'broken',
          {
            type: 'Reject',
            match: [{ select: '$.kind' }],
            rejectMessage: '{{ index .Target.spec.items 5 }}',
          },
        ],
      ]),
    );
    expect(kids(ruleNode(doc, 'a/msg'), 'rejection')[0]).toMatchObject({
      message: 'no Pod here',
      text: 'a/msg: "no Pod here"',
      label: 'rejects the request: a/msg: "no Pod here"',
    });
    expect(kids(ruleNode(doc, 'a/plain'), 'rejection')[0]).toMatchObject({
      message: null,
      text: 'a/plain',
    });
    const broken = ruleNode(doc, 'a/broken');
    expect(broken.status).toBe('rejected');
    expect(kids(broken, 'rejection')[0]?.text).toBe('a/broken');
    expect(kids(broken, 'failure')[0]?.field).toBe('spec.rejectMessage');
    expect(doc.status).toBe('rejected');
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

describe('explain: the trace is bounded', () => {
  const huge: JsonObject = {
    kind: 'ConfigMap',
    metadata: { name: 'big', namespace: 'a' },
    data: {
      blob: 'x'.repeat(2_000_000),
      ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${String(i)}`, 'v'])),
    },
    list: Array.from({ length: 2_000 }, (_, i) => i),
  };

  it('cuts long values, lists and maps; counts what it leaves out', () => {
    const doc = explain(
      storeOf([
        [
          'a',
          'r',
          {
            type: 'Patch',
            match: [{ select: '$.data.blob' }, { select: '$.list[*]' }, { select: '$.data' }],
            patch: [{ op: 'replace', select: '$.list[*]', path: '/list/#0', value: '1' }],
          },
        ],
      ]),
      { object: huge },
    );
    const [blob, list, data] = kids(ruleNode(doc, 'a/r'), 'match');
    const valuesOf = (node: MatchItemNode | undefined): readonly string[] =>
      node?.result?.type === 'values' ? node.result.values : [];
    expect(valuesOf(blob)[0]).toHaveLength(doc.limits.valueChars);
    expect(valuesOf(blob)[0]?.endsWith('…')).toBe(true);
    expect(valuesOf(list)).toHaveLength(doc.limits.values);
    expect(list?.result).toMatchObject({ count: 2_000 });
    expect(valuesOf(data)[0]?.startsWith('map[blob:xxx')).toBe(true);
    const op = kids(ruleNode(doc, 'a/r'), 'operation')[0];
    expect(ruleNode(doc, 'a/r').status).toBe('applied');
    expect(op?.selectCount).toBe(2_000);
    expect(kids(op ?? { children: [] }, 'patch')).toHaveLength(doc.limits.children);
    expect(kids(op ?? { children: [] }, 'note')[0]?.label).toBe(
      `${String(2_000 - doc.limits.children)} more rendered patches not recorded`,
    );
    expect(doc.truncated).toBe(true);
    expect(JSON.stringify(doc).length).toBeLessThan(200_000);
  });

  it('stops recording details at the size limit and rules at the rules limit', () => {
    const rules: [string, string, Spec][] = Array.from({ length: 60 }, (_, i) => [
      'a',
      `r${String(i).padStart(2, '0')}`,
      patchLabel([{ select: '$.list[*]' }, { select: '$.data.blob' }]),
    ]);
    const store = storeOf(rules);
    const request: EvaluationRequest = {
      operation: 'CREATE',
      namespace: 'a',
      object: huge,
      clock: () => 0,
    };
    const { result, explanation } = explainEvaluation(store, request, {
      bytes: 10_000,
      rules: 40,
    });
    expect(result).toEqual(evaluate(store, request));
    expect(explanation.summary.applied).toBe(60);
    expect(explanation.omittedRules).toBe(20);
    expect(kids(explanation, 'rule')).toHaveLength(40);
    const notes = kids(explanation, 'note').map((n) => n.label);
    expect(notes[0]).toBe('20 more rules not shown (trace limit)');
    expect(notes[1]).toMatch(/details not recorded: the trace reached its size limit of 10000/);
    expect(JSON.stringify(explanation).length).toBeLessThan(150_000);
  });

  it('lists the keys of huge maps only within its key budget (no quadratic printing)', () => {
    const wide: JsonObject = {
      kind: 'ConfigMap',
      metadata: { name: 'wide', namespace: 'a' },
      data: Object.fromEntries(Array.from({ length: 15_000 }, (_, i) => [`k${String(i)}`, 'v'])),
    };
    const rules: [string, string, Spec][] = Array.from({ length: 30 }, (_, i) => [
      'a',
      `r${String(i)}`,
      patchLabel([{ select: '$.data' }]),
    ]);
    const started = performance.now();
    const doc = explain(storeOf(rules), { object: wide });
    expect(performance.now() - started).toBeLessThan(5_000);
    const printed = kids(doc, 'rule').map((r) => {
      const result = kids(r, 'match')[0]?.result;
      return result?.type === 'values' ? (result.values[0] ?? '') : '';
    });
    expect(printed[0]?.startsWith('map[k0:v k1:v k10:v')).toBe(true);
    expect(printed.filter((p) => p === 'map[…')).not.toHaveLength(0);
  });
});

describe('explain: a node for every patch', () => {
  it('PatchNode values are JSON text', () => {
    const doc = explain(
      storeOf([
        [
          'a',
          'obj',
          {
            type: 'Patch',
            match: [{ select: '$.kind' }],
            patch: [{ op: 'add', path: '/spec/extra', value: 'a: [1, "two", {b: null}]' }],
          },
        ],
      ]),
    );
    const op = kids(ruleNode(doc, 'a/obj'), 'operation')[0];
    const patch: PatchNode | undefined = kids(op ?? { children: [] }, 'patch')[0];
    expect(patch?.value).toBe('{"a":[1,"two",{"b":null}]}');
    expect(patch?.rendered).toBe('a: [1, "two", {b: null}]');
  });
});
