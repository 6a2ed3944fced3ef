import { describe, expect, it } from 'vitest';
import { clusterFromDocuments } from '../cluster/cluster-documents.js';
import { explain, kids, ruleNode, storeOf } from './explain.test-support.js';

const cluster = clusterFromDocuments(
  [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'a' },
      data: { k: 'v' },
    },
  ],
  'test',
);

describe('explain: lookups', () => {
  it('shows every lookup of a rule, its answer, and why a read was refused', () => {
    const store = storeOf([
      [
        'a',
        'reads',
        {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [
            {
              op: 'add',
              path: '/metadata/labels/x',
              value:
                '{{ (lookup "v1" "ConfigMap" "a" "cfg").data.k }}{{ lookup "v1" "ConfigMap" "a" "none" }}{{ (lookup "v1" "ConfigMap" "a" "cfg").data.k }}{{ lookup "v1" "ConfigMap" (print "b") "other" }}',
            },
          ],
        },
      ],
    ]);
    const node = ruleNode(explain(store, { cluster }), 'a/reads');
    expect(node.status).toBe('failed');
    expect(
      kids(node, 'lookup').map((l) => [l.target, l.answer, l.memoised, l.status, l.reason]),
    ).toEqual([
      ['v1/ConfigMap a/cfg', 'found', false, 'info', null],
      ['v1/ConfigMap a/none', 'absent', false, 'info', null],
      ['v1/ConfigMap a/cfg', 'found', true, 'info', null],
      [
        'v1/ConfigMap b/other',
        'refused',
        false,
        'failed',
        'a rule in namespace a reads only its own namespace (only rules in kubemod-system read others)',
      ],
    ]);
    expect(kids(node, 'failure')[0]?.code).toBe('KM5005');
  });
});
