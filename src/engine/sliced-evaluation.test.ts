import { describe, expect, it } from 'vitest';
import { evaluate, unchangedResult, type EvaluationRequest } from './evaluate.js';
import type { JsonObject } from './json.js';
import { evaluateSliced, type SliceScheduler } from './sliced-evaluation.js';
import { RuleStore } from './store.js';
import { makeRule } from './test-rules.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'a', labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};

/** `count` Patch rules in namespace `a`, each adding label `l<i>` from a small template. */
function labelRules(count: number, template = '{{ .Target.metadata.name }}'): RuleStore {
  const store = new RuleStore();
  for (let i = 0; i < count; i++) {
    store.put(
      makeRule('a', `r${String(i).padStart(3, '0')}`, {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Pod' }],
        patch: [{ op: 'add', path: `/metadata/labels/l${String(i)}`, value: template }],
      }),
    );
  }
  return store;
}

function request(extra: Partial<EvaluationRequest> = {}): EvaluationRequest {
  return { operation: 'CREATE', namespace: 'a', object: pod, ...extra };
}

/** No time backstops: these tests are about when the evaluation yields, not about its limits. */
const UNTIMED = { ruleMillis: 1e9, namespaceMillis: 1e9, requestMillis: 1e9 };

const setImmediateTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('evaluateSliced', () => {
  it('answers a request no rule concerns with the object as received, as evaluate does', async () => {
    // Rules for another kind and another namespace only: no candidate for this Pod.
    const store = labelRules(3);
    store.put(
      makeRule('b', 'elsewhere', {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Pod' }],
        patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
      }),
    );
    const service = { ...pod, kind: 'Service' };
    const scheduler: SliceScheduler = { sliceMs: 0, yieldToLoop: setImmediateTurn };
    const sliced = await evaluateSliced(store, request({ object: service }), scheduler);
    const whole = evaluate(store, request({ object: service }));
    for (const result of [sliced.result, whole]) {
      expect(result.patched).toBe(service);
      expect(result).toEqual(unchangedResult(service));
      expect(result.patch).toEqual([]);
    }
    expect(sliced.yields).toBe(0);
  });

  it('yields only once a slice is used up, at rule boundaries', async () => {
    let now = 0;
    // Every look at the clock costs 1 ms: with 4 ms slices the evaluation yields every few rules.
    const clock = (): number => (now += 1);
    let turns = 0;
    const scheduler: SliceScheduler = {
      sliceMs: 4,
      yieldToLoop: () => {
        turns += 1;
        return Promise.resolve();
      },
    };
    const store = labelRules(20);
    const sliced = await evaluateSliced(store, request({ clock, work: UNTIMED }), scheduler);
    expect(sliced.yields).toBe(turns);
    expect(turns).toBeGreaterThan(2);
    // 20 rules matched then applied are 40 steps: slicing means far fewer yields than steps.
    expect(turns).toBeLessThan(40);
    const plain = evaluate(store, request({ clock: () => 0 }));
    expect(sliced.result.patch).toEqual(plain.patch);
    expect(sliced.result.failures).toEqual([]);
  });

  it('never yields for a request that fits in one slice', async () => {
    const store = labelRules(10);
    let turns = 0;
    const sliced = await evaluateSliced(store, request({ clock: () => 0 }), {
      sliceMs: 2,
      yieldToLoop: () => {
        turns += 1;
        return Promise.resolve();
      },
    });
    expect(turns).toBe(0);
    expect(sliced.result.applied).toHaveLength(10);
  });

  it('does not count the time spent waiting between slices against the rules', async () => {
    let now = 0;
    const clock = (): number => now;
    const store = labelRules(5);
    const sliced = await evaluateSliced(
      store,
      request({ clock, work: { ruleMillis: 10, namespaceMillis: 30, requestMillis: 50 } }),
      {
        sliceMs: 0,
        yieldToLoop: () => {
          // Another request holds the thread for a whole second between two of our rules.
          now += 1000;
          return Promise.resolve();
        },
      },
    );
    expect(sliced.result.failures).toEqual([]);
    expect(sliced.result.applied).toHaveLength(5);
    expect(sliced.waitedMs).toBe(sliced.yields * 1000);
  });

  it('still cuts a rule that works past its own time backstop', async () => {
    let now = 0;
    // The clock moves only while working: 1 ms per look, far past a 0.001 ms rule backstop once
    // a template does enough work to look at it.
    const clock = (): number => (now += 1);
    const store = labelRules(2, '{{ range until 2000 }}{{ range until 50 }}x{{ end }}{{ end }}');
    const sliced = await evaluateSliced(
      store,
      request({ clock, work: { ruleMillis: 0.001, namespaceMillis: 1e9, requestMillis: 1e9 } }),
      { sliceMs: 0, yieldToLoop: () => Promise.resolve() },
    );
    expect(sliced.result.failures.map((f) => f.code)).toEqual(['KM5002', 'KM5002']);
  });

  it('lets a light request finish while a heavy one is still being evaluated', async () => {
    const heavy = labelRules(200, '{{ range until 200 }}{{ $.Target.metadata.name }}{{ end }}');
    const light = labelRules(1);
    const order: string[] = [];
    const heavyDone = evaluateSliced(
      heavy,
      request({ work: { ...UNTIMED, namespaceUnits: 1e9 } }),
      {
        sliceMs: 0,
        yieldToLoop: setImmediateTurn,
      },
    ).then((sliced) => {
      order.push('heavy');
      return sliced;
    });
    await setImmediateTurn();
    const lightDone = evaluateSliced(light, request(), {
      sliceMs: 2,
      yieldToLoop: setImmediateTurn,
    }).then(() => order.push('light'));
    const [sliced] = await Promise.all([heavyDone, lightDone]);
    expect(order).toEqual(['light', 'heavy']);
    expect(sliced.yields).toBeGreaterThan(100);
    expect(sliced.result.failures).toEqual([]);
    expect(sliced.result.applied).toHaveLength(200);
  });

  it('waits for begin before its first rule and calls end once, after a result or an error', async () => {
    const events: string[] = [];
    let letBegin = (): void => undefined;
    const scheduler = (name: string): SliceScheduler => ({
      sliceMs: 1e9,
      yieldToLoop: setImmediateTurn,
      begin: () =>
        new Promise<void>((resolve) => {
          events.push(`${name} begin`);
          letBegin = resolve;
        }),
      end: () => events.push(`${name} end`),
    });
    const done = evaluateSliced(labelRules(2), request(), scheduler('ok')).then((sliced) => {
      events.push(`ok result: ${String(sliced.result.applied.length)} applied`);
    });
    await setImmediateTurn();
    // No rule has run while begin is pending: the result is not there, end not called.
    expect(events).toEqual(['ok begin']);
    letBegin();
    await done;
    expect(events).toEqual(['ok begin', 'ok end', 'ok result: 2 applied']);

    // An evaluation stopped between two slices (its next turn refused: the request's deadline)
    // still ends once.
    events.length = 0;
    const stopped = evaluateSliced(labelRules(2), request(), {
      ...scheduler('stopped'),
      sliceMs: 0,
      yieldToLoop: () => Promise.reject(new Error('deadline')),
    }).catch((err: unknown) => events.push(`stopped: ${(err as Error).message}`));
    await setImmediateTurn();
    letBegin();
    await stopped;
    expect(events).toEqual(['stopped begin', 'stopped end', 'stopped: deadline']);
  });

  it('asks for no turn when no rule is a candidate', async () => {
    const events: string[] = [];
    const sliced = await evaluateSliced(labelRules(2), request({ namespace: 'elsewhere' }), {
      sliceMs: 1e9,
      yieldToLoop: setImmediateTurn,
      begin: () => {
        events.push('begin');
        return Promise.resolve();
      },
      end: () => events.push('end'),
    });
    expect(sliced.result.applied).toEqual([]);
    expect(events).toEqual([]);
  });
});
