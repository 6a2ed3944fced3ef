import { describe, expect, it } from 'vitest';
import { evaluate } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import { verdictOf } from './object-verdict.js';

const deployment = (labels: Record<string, string>): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels },
  spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

function storeOf(...rules: ReturnType<typeof makeRule>[]): RuleStore {
  const store = new RuleStore();
  for (const rule of rules) store.put(rule);
  return store;
}

const update = (store: RuleStore, object: JsonObject): ReturnType<typeof verdictOf> =>
  verdictOf(evaluate(store, { operation: 'UPDATE', namespace: 'shop', object }));

describe('verdictOf', () => {
  const owner = makeRule('shop', 'owner', {
    type: 'Patch',
    match: [{ select: '$.kind', matchValue: 'Deployment' }],
    patch: [{ op: 'add', path: '/metadata/labels/owner', value: 'platform' }],
  });
  const sidecar = makeRule('shop', 'sidecar', {
    type: 'Patch',
    match: [{ select: '$.kind', matchValue: 'Deployment' }],
    patch: [
      {
        op: 'add',
        path: '/spec/template/spec/containers/-1',
        value: 'name: log\nimage: fluentbit',
      },
    ],
  });

  it('names the patch rules that write where the object would change', () => {
    const verdict = update(storeOf(owner, sidecar), deployment({}));
    expect(verdict.action).toBe('patch');
    expect(verdict.patchingRules).toEqual(['shop/owner', 'shop/sidecar']);
    expect(verdict.patch.map((op) => op.path)).toEqual([
      '/metadata/labels/owner',
      '/spec/template/spec/containers/1',
    ]);
  });

  it('does not name a rule that matches but would change nothing', () => {
    const verdict = update(storeOf(owner, sidecar), deployment({ owner: 'platform' }));
    expect(verdict.patchingRules).toEqual(['shop/sidecar']);
    const conforming = update(storeOf(owner), deployment({ owner: 'platform' }));
    expect(conforming).toMatchObject({ action: 'none', patchingRules: [], patch: [] });
  });

  it('reports rejections with their rules, before patches', () => {
    const reject = makeRule('shop', 'no-latest', {
      type: 'Reject',
      rejectMessage: 'pin your images',
      match: [{ select: '$.spec.template.spec.containers[*].image', matchRegex: '^nginx$' }],
    });
    const verdict = update(storeOf(owner, reject), deployment({}));
    expect(verdict.action).toBe('reject');
    expect(verdict.rejectingRules).toEqual(['shop/no-latest']);
    expect(verdict.rejections).toEqual(['shop/no-latest: "pin your images"']);
    expect(verdict.patchingRules).toEqual(['shop/owner']);
  });
});
