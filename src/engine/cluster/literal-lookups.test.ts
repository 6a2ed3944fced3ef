import { describe, expect, it } from 'vitest';
import { makeRule } from '../test-rules.js';
import { literalLookups } from './literal-lookups.js';

const patchWith = (value: string): Record<string, unknown> => ({
  type: 'Patch',
  match: [{ select: '$.kind' }],
  patch: [{ op: 'add', path: '/metadata/labels/x', value }],
});

describe('literal lookups', () => {
  it('lists lookups whose target is written literally, with their field', () => {
    const spec = {
      type: 'Reject',
      match: [
        {
          select:
            '$.spec.containers[? @.image == "{{ (lookup "v1" "ConfigMap" "a" "m").data.i }}"]',
        },
      ],
      rejectMessage:
        '{{ (lookup "v1" "ConfigMap" "a" .Target.metadata.name).data }} {{ lookup "v1" "Secret" "b" "s" }}',
    };
    expect(literalLookups({ spec } as never)).toEqual([
      {
        field: 'spec.match[0].select',
        key: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'm' },
      },
      {
        field: 'spec.rejectMessage',
        key: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: '' },
      },
      {
        field: 'spec.rejectMessage',
        key: { apiVersion: 'v1', kind: 'Secret', namespace: 'b', name: 's' },
      },
    ]);
  });

  it.each([
    ['its own namespace', 'a', '{{ lookup "v1" "ConfigMap" "a" "c" }}', undefined],
    [
      'a computed namespace (checked when evaluated)',
      'a',
      '{{ lookup "v1" "ConfigMap" .Namespace "c" }}',
      undefined,
    ],
    [
      'another namespace',
      'a',
      '{{ lookup "v1" "ConfigMap" "b" "c" }}',
      'spec.patch[0].value: lookup v1/ConfigMap b/c: a rule in namespace a reads only its own namespace',
    ],
    [
      'a cluster-scoped kind',
      'a',
      '{{ lookup "v1" "Node" "" "n" }}',
      'spec.patch[0].value: lookup v1/Node n: a rule in namespace a cannot read cluster-scoped Node objects',
    ],
    [
      'a cluster-scoped kind given a namespace',
      'a',
      '{{ lookup "v1" "Node" "a" "n" }}',
      'cannot read cluster-scoped Node objects',
    ],
    [
      'another namespace, computed name',
      'a',
      '{{ lookup "v1" "ConfigMap" "b" .Target.metadata.name }}',
      'lookup v1/ConfigMap b/…',
    ],
    [
      'kubemod-system: another namespace',
      'kubemod-system',
      '{{ lookup "v1" "ConfigMap" "b" "c" }}',
      undefined,
    ],
    [
      'kubemod-system: a cluster-scoped kind',
      'kubemod-system',
      '{{ lookup "v1" "Node" "" "n" }}',
      undefined,
    ],
  ])('%s', (_name, namespace, value, error) => {
    const compile = (): unknown => makeRule(namespace, 'r', patchWith(value));
    if (error === undefined) expect(compile).not.toThrow();
    else expect(compile).toThrow(error);
  });
});
