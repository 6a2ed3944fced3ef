import { describe, expect, it } from 'vitest';
import { evaluate } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import { CONFIGMAPS } from './fake-audit-api.test-support.js';
import { verdictOf } from './object-verdict.js';
import { prefilteredEvaluate } from './rule-prefilter.js';

const labelled = (rule: string, tier = 0) =>
  makeRule('shop', `label-${rule}`, {
    type: 'Patch',
    executionTier: tier,
    match: [{ select: '$.metadata.labels.app', matchValue: rule }],
    patch: [{ op: 'add', path: '/metadata/labels/seen', value: 'yes' }],
  });

const configMap = (app: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${app}`, namespace: 'shop', labels: { app } },
});

describe('prefilteredEvaluate', () => {
  it('skips the full evaluation of objects the rule does not match, with the same verdict', () => {
    const store = new RuleStore();
    const rule = labelled('web');
    store.put(rule);
    for (let i = 0; i < 50; i++) store.put(labelled(`other-${String(i)}`));
    let full = 0;
    const evaluateFull = (object: JsonObject) => {
      full++;
      return evaluate(store, { operation: 'UPDATE', namespace: 'shop', object });
    };
    const filtered = prefilteredEvaluate(rule, () => store, evaluateFull);
    for (const app of ['web', 'db', 'other-3']) {
      const object = configMap(app);
      const expected = verdictOf(evaluateFull(object)).patchingRules.includes(rule.key);
      full = 0;
      const got = verdictOf(filtered(object, CONFIGMAPS)).patchingRules.includes(rule.key);
      expect([app, got]).toEqual([app, expected]);
      expect([app, full]).toEqual([app, app === 'web' ? 1 : 0]);
    }
  });

  it('evaluates in full when a lower-tier Patch rule could make the rule match', () => {
    const store = new RuleStore();
    const rule = labelled('web', 5);
    const relabel = makeRule('shop', 'relabel', {
      type: 'Patch',
      executionTier: 1,
      match: [{ select: '$.metadata.labels.app', matchValue: 'db' }],
      patch: [{ op: 'replace', path: '/metadata/labels/app', value: 'web' }],
    });
    store.put(rule);
    store.put(relabel);
    let full = 0;
    const filtered = prefilteredEvaluate(
      rule,
      () => store,
      (object) => {
        full++;
        return evaluate(store, { operation: 'UPDATE', namespace: 'shop', object });
      },
    );
    const result = filtered(configMap('db'), CONFIGMAPS);
    expect(full).toBe(1);
    expect(verdictOf(result).patchingRules).toContain(rule.key);
  });
});
