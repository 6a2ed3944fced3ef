import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { handleDryRun, type DryRunResponse } from '../../../src/webhook/dryrun/dryrun-handler.js';

// Issue 39: a dry run says when the rules made an object the API server would refuse
// (objectProblems), and when a manifest given for syntheticRefs is not used (notes).

const NO_CLOCK = { ruleMillis: 1e9, namespaceMillis: 1e9, requestMillis: 1e9 };

function dryRun(body: Record<string, unknown>): DryRunResponse {
  return handleDryRun(JSON.parse(JSON.stringify(body)) as JsonObject, {
    clusterNamespace: 'kubemod-system',
    refs: { namespace: () => undefined, node: () => undefined },
    limits: { template: {}, work: NO_CLOCK },
  }) as DryRunResponse;
}

const LABELS = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: labels, namespace: shop }
spec:
  type: Patch
  match: [{ select: '$.kind', matchValue: Pod }]
  patch:
    - { op: add, path: /metadata/labels/team, value: '{{ .Target.metadata.labels.owner }}' }
    - { op: add, path: /metadata/labels/ns-id, value: '{{ index .Target.syntheticRefs.namespace.metadata.labels "id" }}' }
`;

const POD = `apiVersion: v1
kind: Pod
metadata: { name: web, namespace: shop }
spec: { containers: [{ name: web, image: 'nginx:1' }] }
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata: { name: shop, labels: { id: '0042' } }
`;

const NODE = `apiVersion: v1
kind: Node
metadata: { name: node-1 }
`;

describe('dry run: objectProblems and notes (issue 39)', () => {
  it('lists a <no value> label and a label turned into a number', () => {
    const answer = dryRun({
      modRules: LABELS,
      resourceManifest: POD,
      syntheticRefs: { namespace: NAMESPACE },
    });
    expect(answer.patch).not.toEqual([]);
    expect(answer.objectProblems).toEqual([
      expect.stringMatching(/^metadata\.labels\.team: "<no value>" is not a valid label value/),
      expect.stringMatching(/^metadata\.labels\.ns-id: must be a string, got the number 34; /),
    ]);
    expect(answer.notes).toBeUndefined();
  });

  it('has no objectProblems member when the result is valid', () => {
    const answer = dryRun({
      modRules: LABELS.replace("labels.owner }}'", 'labels.owner | default "none" }}\'').replace(
        `"id" }}'`,
        `"id" | quote }}'`,
      ),
      resourceManifest: POD,
      syntheticRefs: { namespace: NAMESPACE },
    });
    expect(answer.patch).not.toEqual([]);
    expect(answer).not.toHaveProperty('objectProblems');
  });

  it('notes a Node manifest that a Pod without ref.kubemod.io/nodename does not get', () => {
    const answer = dryRun({
      modRules: LABELS,
      resourceManifest: POD,
      syntheticRefs: { namespace: NAMESPACE, node: NODE },
    });
    expect(answer.notes).toEqual([
      expect.stringMatching(
        /^syntheticRefs\.node is not used: the webhook injects a node only into a Pod annotated ref\.kubemod\.io\/nodename/,
      ),
    ]);
    const annotated = dryRun({
      modRules: LABELS,
      resourceManifest: POD.replace(
        'namespace: shop }',
        "namespace: shop, annotations: { 'ref.kubemod.io/nodename': node-1 } }",
      ),
      syntheticRefs: { namespace: NAMESPACE, node: NODE },
    });
    expect(annotated).not.toHaveProperty('notes');
  });
});
