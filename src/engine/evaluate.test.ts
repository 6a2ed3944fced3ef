import { describe, expect, it } from 'vitest';
import { evaluate } from './evaluate.js';
import { RuleStore } from './store.js';
import { makeRule } from './test-rules.js';
import type { JsonObject } from './json.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'a' },
  spec: { containers: [{ name: 'c' }] },
};

function storeWith(...rules: [string, Record<string, unknown>][]): RuleStore {
  const store = new RuleStore();
  for (const [name, spec] of rules) store.put(makeRule('a', name, spec));
  return store;
}

describe('evaluate', () => {
  it('returns the request object and an empty patch when nothing matches, without copying', () => {
    const store = storeWith([
      'r',
      {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Service' }],
        patch: [{ op: 'remove', path: '/spec' }],
      },
    ]);
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod });
    expect(result.patched).toBe(pod);
    expect(result.patch).toEqual([]);
  });

  it('cuts off an exploding template with a catalogued error and still applies the other rules', () => {
    const bomb = '{{ range until 1000 }}{{ range until 1000 }}xxxxxxxxxx{{ end }}{{ end }}';
    const store = storeWith(
      [
        'bomb',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/metadata/labels/b', value: bomb }],
        },
      ],
      [
        'ok',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/metadata/labels/ok', value: 'fine' }],
        },
      ],
    );
    const started = performance.now();
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.failures).toEqual([
      expect.objectContaining({ rule: 'a/bomb', field: 'spec.patch[0].value' }),
    ]);
    // The output limit (KM3003), or the rule's work budget (KM5002) on a slow machine.
    expect(['KM3003', 'KM5002']).toContain(result.failures[0]?.code);
    expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { ok: 'fine' } }]);
  });

  it('gives templates no way to the process, the environment or files', () => {
    const attempts = [
      '{{ .Target.constructor }}',
      '{{ .Target.constructor.constructor }}',
      '{{ .Target.__proto__ }}',
      '"{{ .Target.metadata.name.constructor.name }}"',
    ];
    const store = storeWith(
      ...attempts.map((value, i): [string, Record<string, unknown>] => [
        `r${String(i)}`,
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: `/metadata/annotations/a${String(i)}`, value }],
        },
      ]),
    );
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod });
    const annotations =
      (result.patched.metadata as { annotations?: Record<string, unknown> }).annotations ?? {};
    for (const value of Object.values(annotations)) {
      expect(String(value)).not.toMatch(/function|native code|process|\[object/i);
    }
    for (const fn of ['env "HOME"', 'expandenv "$HOME"', 'readFile "/etc/passwd"', 'exec "ls"']) {
      expect(() =>
        makeRule('a', 'x', {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/x', value: `{{ ${fn} }}` }],
        }),
      ).toThrow(/not defined|unknown helper/);
    }
  });

  it('treats Namespace objects as cluster-scoped even when the request names a namespace', () => {
    const store = new RuleStore();
    store.put(
      makeRule('kubemod-system', 'ns', {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Namespace' }],
        patch: [{ op: 'add', path: '/metadata/labels/l', value: 'v' }],
      }),
    );
    const ns: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } };
    const result = evaluate(store, { operation: 'UPDATE', namespace: 'a', object: ns });
    expect(result.applied.map((a) => a.rule)).toEqual(['kubemod-system/ns']);
  });

  it('keeps syntheticRefs out of the patch and the patched object, and never mutates the refs', () => {
    const refs = {
      namespace: { kind: 'Namespace', metadata: { name: 'a', labels: { flavor: 'x' } } },
    };
    const store = storeWith([
      'r',
      {
        type: 'Patch',
        match: [{ select: '$.syntheticRefs.namespace.metadata.labels.flavor' }],
        patch: [
          {
            op: 'add',
            path: '/metadata/labels/flavor',
            value: '{{ .Target.syntheticRefs.namespace.metadata.labels.flavor }}',
          },
          { op: 'add', path: '/syntheticRefs/namespace/metadata/labels/hacked', value: 'yes' },
        ],
      },
    ]);
    const result = evaluate(store, {
      operation: 'CREATE',
      namespace: 'a',
      object: pod,
      syntheticRefs: refs,
    });
    expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { flavor: 'x' } }]);
    expect(result.patched.syntheticRefs).toBeUndefined();
    expect(refs.namespace.metadata.labels).toEqual({ flavor: 'x' });
  });

  it('reports a placeholder beyond the captured indexes when the rule is compiled', () => {
    expect(() =>
      makeRule('a', 'x', {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [
          {
            op: 'add',
            select: '$.spec.containers[*]',
            path: '/spec/containers/#0/x/#1',
            value: '1',
          },
        ],
      }),
    ).toThrow('spec.patch[0].path: uses placeholder #1 but the select captures only 1 index(es)');
  });

  it('computes each rule of a tier on the object as the rules before it in the tier left it', () => {
    const labelled: JsonObject = {
      ...pod,
      metadata: { name: 'p', namespace: 'a', labels: { app: 'prod', team: '1', tier: 'back' } },
    };
    const store = storeWith(
      [
        'a',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'remove', path: '/metadata/labels/team' }],
        },
      ],
      [
        'b',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [
            {
              op: 'add',
              path: '/metadata/labels/owner',
              value: '"{{ .Target.metadata.labels }}"',
            },
          ],
        },
      ],
      [
        'c',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [
            {
              op: 'replace',
              select: '$.metadata.labels[? @ =~ "^map"]',
              path: '/metadata/labels/#0',
              value: '{{ .SelectedItem | len }}',
            },
          ],
        },
      ],
    );
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: labelled });
    expect(result.failures).toEqual([]);
    expect(result.applied.map((a) => a.operations)).toEqual([
      [{ op: 'remove', path: '/metadata/labels/team' }],
      [{ op: 'add', path: '/metadata/labels/owner', value: 'map[app:prod tier:back]' }],
      [{ op: 'replace', path: '/metadata/labels/owner', value: 23 }],
    ]);
    expect(result.patched.metadata).toEqual({
      name: 'p',
      namespace: 'a',
      labels: { app: 'prod', tier: 'back', owner: 23 },
    });
  });

  it("decides which rules of a tier apply on the tier's input", () => {
    const store = storeWith(
      [
        'a-adds',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/metadata/labels/added', value: 'here' }],
        },
      ],
      [
        'b-needs-added',
        {
          type: 'Patch',
          match: [{ select: '$.metadata.labels.added' }],
          patch: [{ op: 'add', path: '/metadata/labels/same-tier', value: 'here' }],
        },
      ],
      [
        'c-needs-added-later',
        {
          type: 'Patch',
          executionTier: 1,
          match: [{ select: '$.metadata.labels.added' }],
          patch: [{ op: 'add', path: '/metadata/labels/next-tier', value: 'here' }],
        },
      ],
    );
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod });
    expect(result.applied.map((a) => a.name)).toEqual(['a-adds', 'c-needs-added-later']);
    expect((result.patched.metadata as JsonObject).labels).toEqual({
      added: 'here',
      'next-tier': 'here',
    });
  });

  it('undoes a rule that fails half-way through applying; the rules after it do not see it', () => {
    const store = storeWith(
      [
        'a-half',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [
            { op: 'add', path: '/metadata/labels/half', value: 'applied' },
            { op: 'replace', path: '/spec/missing', value: 'x' },
          ],
        },
      ],
      [
        'b-reads',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [
            {
              op: 'add',
              path: '/metadata/annotations/half',
              value: '"{{ .Target.metadata.labels }}"',
            },
          ],
        },
      ],
    );
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod });
    expect(result.failures.map((f) => [f.rule, f.field])).toEqual([['a/a-half', 'spec.patch[1]']]);
    expect(result.patched.metadata).toEqual({
      name: 'p',
      namespace: 'a',
      annotations: { half: '<no value>' },
    });
    expect(result.patch).toEqual([
      { op: 'add', path: '/metadata/annotations', value: { half: '<no value>' } },
    ]);
  });

  it('renders a missing value as null and removes with select', () => {
    const store = storeWith([
      'r',
      {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [
          { op: 'add', path: '/spec/nothing' },
          {
            op: 'remove',
            select: '$.spec.containers[? @.name == "c"]',
            path: '/spec/containers/#0',
          },
        ],
      },
    ]);
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod });
    expect(result.patched.spec).toEqual({ containers: [], nothing: null });
  });
});
