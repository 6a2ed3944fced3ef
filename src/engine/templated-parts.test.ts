import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterFromDocuments } from './cluster/cluster-documents.js';
import { evaluate, type EvaluationResult } from './evaluate.js';
import type { JsonObject } from './json.js';
import { RuleStore } from './store.js';
import { makeRule } from './test-rules.js';
import { MAX_RENDERED_CHARS } from './templated-parts.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'a', labels: { app: 'web', pick: 'log' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.25' },
      { name: 'log', image: 'busybox:1' },
    ],
  },
};

const cluster = clusterFromDocuments(
  [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'a' },
      data: { container: 'app', label: 'team' },
    },
  ],
  'test',
);

function run(spec: Record<string, unknown>): EvaluationResult {
  const store = new RuleStore();
  store.put(makeRule('a', 'r', spec));
  return evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod, cluster });
}

describe('templates in select and path (KubeMod #116)', () => {
  it('renders a patch select before evaluating it', () => {
    const result = run({
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: [
        {
          op: 'replace',
          select: '$.spec.containers[? @.name == "{{ .Target.metadata.labels.pick }}"].image',
          path: '/spec/containers/#0/image',
          value: 'busybox:2',
        },
      ],
    });
    expect(result.failures).toEqual([]);
    expect(result.patch).toEqual([
      { op: 'replace', path: '/spec/containers/1/image', value: 'busybox:2' },
    ]);
  });

  it('renders a match select with a lookup', () => {
    const result = run({
      type: 'Patch',
      match: [
        {
          select: '$.spec.containers[*].name',
          matchValue: '{{ (lookup "v1" "ConfigMap" "a" "cfg").data.container }}',
        },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/m', value: 'yes' }],
    });
    // matchValue is not templated: only select and path are.
    expect(result.applied).toEqual([]);
    const templated = run({
      type: 'Patch',
      match: [
        {
          select:
            '$.spec.containers[? @.name == "{{ (lookup "v1" "ConfigMap" "a" "cfg").data.container }}"]',
        },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/m', value: 'yes' }],
    });
    expect(templated.applied.map((a) => a.name)).toEqual(['r']);
  });

  it('renders a path per selected item', () => {
    const result = run({
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: [
        {
          op: 'add',
          select: '$.spec.containers[*]',
          path: '/metadata/labels/{{ (lookup "v1" "ConfigMap" "a" "cfg").data.label }}-{{ .SelectedItem.name }}',
          value: 'x',
        },
      ],
    });
    expect(result.failures).toEqual([]);
    expect(result.patch.map((op) => op.path)).toEqual([
      '/metadata/labels/team-app',
      '/metadata/labels/team-log',
    ]);
  });

  it.each([
    ['select', { select: '$.spec[{{ .x }}' }, 'spec.match[0].select'],
    ['select template', { select: '$.spec.{{ .x | nosuchfn }}' }, 'spec.match[0].select'],
    ['path', { path: 'metadata/{{ .x }}' }, 'spec.patch[0].path'],
    ['path placeholder', { path: '/metadata/{{ .x }}/#0' }, 'spec.patch[0].path'],
  ])('refuses a broken %s when the rule is compiled', (_what, part, field) => {
    const spec = {
      type: 'Patch',
      match: [{ select: 'select' in part ? part.select : '$.kind' }],
      patch: [{ op: 'add', path: 'path' in part ? part.path : '/a', value: 'x' }],
    };
    expect(() => makeRule('a', 'r', spec)).toThrow(field);
  });

  it('fails a rule whose rendered select is too long, within its work units', () => {
    const result = run({
      type: 'Patch',
      match: [{ select: `$.kind{{ repeat ${String(MAX_RENDERED_CHARS)} " " }}` }],
      patch: [{ op: 'add', path: '/a', value: 'x' }],
    });
    expect(result.failures).toEqual([
      expect.objectContaining({ code: 'KM1004', field: 'spec.match[0].select' }),
    ]);
  });

  it('property: any rendered select or path either works or fails with a catalogued error, quickly', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '$',
        '.',
        '[',
        ']',
        '*',
        '?',
        '@',
        '==',
        '"',
        "'",
        '..',
        '#0',
        '/',
        'spec',
        'containers',
        'name',
      ),
      fc.constantFrom(
        '{{ .Target.metadata.name }}',
        '{{ repeat 100 "a" }}',
        '{{ range until 50 }}[*]{{ end }}',
        '{{ lookup "v1" "ConfigMap" "a" "cfg" }}',
        '{{ "]" }}',
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.array(piece, { maxLength: 6 }), (s, p) => {
        const select = `$${s.join('')}`;
        const path = `/${p.join('')}`;
        const store = new RuleStore();
        try {
          store.put(
            makeRule('a', 'r', {
              type: 'Patch',
              match: [{ select: '$.kind' }],
              patch: [{ op: 'add', select, path, value: 'x' }],
            }),
          );
        } catch {
          return; // refused when compiled
        }
        const start = performance.now();
        // Evaluation never throws: a failing render, select or path is the rule's failure.
        const result = evaluate(store, {
          operation: 'CREATE',
          namespace: 'a',
          object: pod,
          cluster,
        });
        for (const failure of result.failures) expect(failure.code).toMatch(/^KM\d{4}$/);
        expect(performance.now() - start).toBeLessThan(1_000);
      }),
      { numRuns: 200 },
    );
  });
});
