import { describe, expect, it } from 'vitest';
import { evaluate, type EvaluationRequest } from '../evaluate.js';
import type { JsonObject } from '../json.js';
import { explainEvaluation } from './explain.js';
import { explain, kids, patchLabel, ruleNode, storeOf, type Spec } from './explain.test-support.js';
import type { MatchItemNode } from './schema.js';
describe('explain: the trace is bounded', () => {
  const huge: JsonObject = {
    kind: 'ConfigMap',
    metadata: { name: 'big', namespace: 'a' },
    data: {
      blob: 'x'.repeat(2_000_000),
      ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${String(i)}`, 'v'])),
    },
    list: Array.from({ length: 2_000 }, (_, i) => i),
  };

  it('cuts long values, lists and maps; counts what it leaves out', () => {
    const doc = explain(
      storeOf([
        [
          'a',
          'r',
          {
            type: 'Patch',
            match: [{ select: '$.data.blob' }, { select: '$.list[*]' }, { select: '$.data' }],
            patch: [{ op: 'replace', select: '$.list[*]', path: '/list/#0', value: '1' }],
          },
        ],
      ]),
      { object: huge },
    );
    const [blob, list, data] = kids(ruleNode(doc, 'a/r'), 'match');
    const valuesOf = (node: MatchItemNode | undefined): readonly string[] =>
      node?.result?.type === 'values' ? node.result.values : [];
    expect(valuesOf(blob)[0]).toHaveLength(doc.limits.valueChars);
    expect(valuesOf(blob)[0]?.endsWith('…')).toBe(true);
    expect(valuesOf(list)).toHaveLength(doc.limits.values);
    expect(list?.result).toMatchObject({ count: 2_000 });
    expect(valuesOf(data)[0]?.startsWith('map[blob:xxx')).toBe(true);
    const op = kids(ruleNode(doc, 'a/r'), 'operation')[0];
    expect(ruleNode(doc, 'a/r').status).toBe('applied');
    expect(op?.selectCount).toBe(2_000);
    expect(kids(op ?? { children: [] }, 'patch')).toHaveLength(doc.limits.children);
    expect(kids(op ?? { children: [] }, 'note')[0]?.label).toBe(
      `${String(2_000 - doc.limits.children)} more rendered patches not recorded`,
    );
    expect(doc.truncated).toBe(true);
    expect(JSON.stringify(doc).length).toBeLessThan(200_000);
  });

  it('stops recording details at the size limit and rules at the rules limit', () => {
    const rules: [string, string, Spec][] = Array.from({ length: 60 }, (_, i) => [
      'a',
      `r${String(i).padStart(2, '0')}`,
      patchLabel([{ select: '$.list[*]' }, { select: '$.data.blob' }]),
    ]);
    const store = storeOf(rules);
    const request: EvaluationRequest = {
      operation: 'CREATE',
      namespace: 'a',
      object: huge,
      clock: () => 0,
    };
    const { result, explanation } = explainEvaluation(store, request, {
      bytes: 10_000,
      rules: 40,
    });
    expect(result).toEqual(evaluate(store, request));
    expect(explanation.summary.applied).toBe(60);
    expect(explanation.omittedRules).toBe(20);
    expect(kids(explanation, 'rule')).toHaveLength(40);
    const notes = kids(explanation, 'note').map((n) => n.label);
    expect(notes[0]).toBe('20 more rules not shown (trace limit)');
    expect(notes[1]).toMatch(/details not recorded: the trace reached its size limit of 10000/);
    expect(JSON.stringify(explanation).length).toBeLessThan(150_000);
  });

  it('lists the keys of huge maps only within its key budget (no quadratic printing)', () => {
    const wide: JsonObject = {
      kind: 'ConfigMap',
      metadata: { name: 'wide', namespace: 'a' },
      data: Object.fromEntries(Array.from({ length: 15_000 }, (_, i) => [`k${String(i)}`, 'v'])),
    };
    const rules: [string, string, Spec][] = Array.from({ length: 30 }, (_, i) => [
      'a',
      `r${String(i)}`,
      patchLabel([{ select: '$.data' }]),
    ]);
    const started = performance.now();
    const doc = explain(storeOf(rules), { object: wide });
    expect(performance.now() - started).toBeLessThan(5_000);
    const printed = kids(doc, 'rule').map((r) => {
      const result = kids(r, 'match')[0]?.result;
      return result?.type === 'values' ? (result.values[0] ?? '') : '';
    });
    expect(printed[0]?.startsWith('map[k0:v k1:v k10:v')).toBe(true);
    expect(printed.filter((p) => p === 'map[…')).not.toHaveLength(0);
  });
});
