import { describe, expect, it } from 'vitest';
import { evaluate, type EvaluationResult } from '../evaluate.js';
import type { JsonObject } from '../json.js';
import { RuleStore } from '../store.js';
import { makeRule } from '../test-rules.js';
import type { ClusterView, LookupAnswer, PendingAsk } from './cluster-view.js';
import { evaluateWithLookups, type AskResolver } from './resolve-loop.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'a', labels: {} },
};

/** A view whose ConfigMaps are pending until resolved; resolving `steps` of them per round. */
function setup(
  value: string,
  steps = Number.POSITIVE_INFINITY,
): { evaluate: () => EvaluationResult; resolver: AskResolver; rounds: PendingAsk[][] } {
  const resolved = new Set<string>();
  const view: ClusterView = {
    get: (_asker, key): LookupAnswer =>
      resolved.has(key.name)
        ? { kind: 'found', value: { data: { v: key.name } } }
        : { kind: 'pending' },
    external: (): LookupAnswer => ({ kind: 'absent' }),
  };
  const rounds: PendingAsk[][] = [];
  const resolver: AskResolver = {
    resolve: (asks) => {
      rounds.push([...asks]);
      for (const ask of asks.slice(0, steps)) if (ask.type === 'object') resolved.add(ask.key.name);
      return Promise.resolve();
    },
  };
  const store = new RuleStore();
  store.put(
    makeRule('a', 'r', {
      type: 'Patch',
      match: [{ select: '$.kind' }],
      patch: [{ op: 'add', path: '/metadata/labels/x', value }],
    }),
  );
  return {
    evaluate: () =>
      evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod, cluster: view }),
    resolver,
    rounds,
  };
}

const TWO =
  '{{ (lookup "v1" "ConfigMap" "a" "m").data.v }}{{ (lookup "v1" "ConfigMap" "a" "n").data.v }}';

describe('evaluateWithLookups', () => {
  it('returns the first result unchanged when nothing is pending', async () => {
    const { evaluate: run, resolver, rounds } = setup('plain');
    let calls = 0;
    const result = await evaluateWithLookups(() => {
      calls += 1;
      return run();
    }, resolver);
    expect(calls).toBe(1);
    expect(rounds).toEqual([]);
    expect(result.applied.map((a) => a.name)).toEqual(['r']);
  });

  it('resolves every pending ask of a round together, then evaluates again', async () => {
    const { evaluate: run, resolver, rounds } = setup(TWO);
    const result = await evaluateWithLookups(run, resolver);
    expect(rounds.map((r) => r.length)).toEqual([2]);
    expect(result.failures).toEqual([]);
    expect(result.pending).toEqual([]);
    expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels/x', value: 'mn' }]);
  });

  it('gives up after `rounds`: the rule fails as not resolved and the answer is final', async () => {
    const { evaluate: run, resolver, rounds } = setup(TWO, 0);
    const result = await evaluateWithLookups(run, resolver, 2);
    expect(rounds).toHaveLength(2);
    expect(result.pending).toEqual([]);
    expect(result.failures).toEqual([expect.objectContaining({ rule: 'a/r', code: 'KM5007' })]);
  });

  it('starts no round without a resolver or without time left', async () => {
    const none = setup(TWO);
    expect((await evaluateWithLookups(none.evaluate, undefined)).failures[0]?.code).toBe('KM5007');
    const late = setup(TWO);
    await evaluateWithLookups(late.evaluate, late.resolver, 3, () => 0);
    expect(late.rounds).toEqual([]);
  });
});
