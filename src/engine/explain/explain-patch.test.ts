import { describe, expect, it } from 'vitest';
import { explain, kids, patchLabel, ruleNode, storeOf, type Spec } from './explain.test-support.js';
import type { FailureNode, OperationNode, PatchNode } from './schema.js';
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

  it('within a tier: matched on the tier input, rendered on the steps before (cluster-wide first)', () => {
    const rule = (match: Spec[], label: string, value: string): Spec => ({
      type: 'Patch',
      match,
      patch: [{ op: 'add', path: `/metadata/labels/${label}`, value }],
    });
    const store = storeOf(
      [
        [
          'a',
          'b-reads-x',
          rule([{ select: '$.kind' }], 'y', 'saw {{ .Target.metadata.labels.x }}'),
        ],
        ['a', 'c-needs-x', rule([{ select: '$.metadata.labels.x', matchValue: 'one' }], 'z', 'z')],
        [
          'kubemod-system',
          'z-adds-x',
          { ...rule([{ select: '$.kind' }], 'x', 'one'), targetNamespaceRegex: '.*' },
        ],
      ],
      'kubemod-system',
    );
    const doc = explain(store);
    expect(ruleNode(doc, 'kubemod-system/z-adds-x')).toMatchObject({ step: 1, order: 1 });
    const reads = ruleNode(doc, 'a/b-reads-x');
    expect(reads).toMatchObject({ step: 2, order: 2 });
    const [op] = kids(reads, 'operation');
    expect(kids(op ?? { children: [] }, 'patch')[0]?.rendered).toBe('saw one');
    // c-needs-x was matched against the tier's input, where the label did not exist yet.
    const needs = ruleNode(doc, 'a/c-needs-x');
    expect(needs).toMatchObject({ status: 'not-matched', order: 3, step: null });
    expect(kids(needs, 'match')[0]?.label).toBe(
      'spec.match[0] $.metadata.labels.x = "one": got undefined → not matched',
    );
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
