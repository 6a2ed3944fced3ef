import { expect } from 'vitest';
import { evaluate, type EvaluationRequest } from '../evaluate.js';
import type { JsonObject } from '../json.js';
import { RuleStore } from '../store.js';
import { makeRule } from '../test-rules.js';
import { explainEvaluation } from './explain.js';
import type { ExplainDocument, ExplainNode, RuleNode } from './schema.js';

/** Helpers of the explain tests. */

export const pod: JsonObject = {
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

export type Spec = Record<string, unknown>;

export function storeOf(rules: [string, string, Spec][], clusterNamespace?: string): RuleStore {
  const store = new RuleStore(clusterNamespace === undefined ? {} : { clusterNamespace });
  for (const [namespace, name, spec] of rules) store.put(makeRule(namespace, name, spec));
  return store;
}

/** Explains, and checks the result is the one evaluate() gives without explaining. */
export function explain(
  store: RuleStore,
  request: Partial<EvaluationRequest> = {},
): ExplainDocument {
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

export function ruleNode(doc: ExplainDocument, key: string): RuleNode {
  const node = doc.children.find((c): c is RuleNode => c.kind === 'rule' && c.rule === key);
  if (node === undefined) throw new Error(`no node for ${key}`);
  return node;
}

export function kids<K extends ExplainNode['kind']>(
  node: { children: readonly ExplainNode[] },
  kind: K,
): Extract<ExplainNode, { kind: K }>[] {
  return node.children.filter((c): c is Extract<ExplainNode, { kind: K }> => c.kind === kind);
}

export const patchLabel = (match: Spec[]): Spec => ({
  type: 'Patch',
  match,
  patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
});
