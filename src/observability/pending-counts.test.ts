import fc from 'fast-check';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PendingCounts } from './pending-counts.js';

type Labels = Record<'rule' | 'result', string>;

function counters(): { direct: Counter<'rule' | 'result'>; held: Counter<'rule' | 'result'> } {
  const registry = new Registry();
  const labelNames = ['rule', 'result'] as const;
  return {
    direct: new Counter({ name: 'direct', help: 'd', labelNames, registers: [registry] }),
    held: new Counter({ name: 'held', help: 'h', labelNames, registers: [registry] }),
  };
}

async function values(counter: Counter<'rule' | 'result'>): Promise<string[]> {
  const { values } = await counter.get();
  return values.map((v) => `${String(v.labels.rule)}|${String(v.labels.result)}=${v.value}`).sort();
}

describe('PendingCounts', () => {
  it('gives a counter what direct increments give it, however reads interleave', async () => {
    const step = fc.oneof(
      fc.record({
        rule: fc.constantFrom('a/x', 'a/y', 'b/x', 'other'),
        result: fc.constantFrom('patched', 'warned'),
      }),
      fc.constant('read' as const),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const { direct, held } = counters();
        const pending = new PendingCounts<'rule' | 'result'>((l) => `${l.rule}\0${l.result}`);
        for (const s of steps) {
          if (s === 'read') {
            pending.flushInto(held);
            expect(await values(held)).toEqual(await values(direct));
          } else {
            direct.inc(s);
            pending.inc({ ...s });
          }
        }
        pending.flushInto(held);
        expect(pending.size).toBe(0);
        expect(await values(held)).toEqual(await values(direct));
      }),
    );
  });

  it('holds one entry per series, whatever the number of increments', () => {
    const pending = new PendingCounts<'rule' | 'result'>((l) => `${l.rule}\0${l.result}`);
    for (let i = 0; i < 10_000; i++) pending.inc({ rule: `r${String(i % 3)}`, result: 'patched' });
    expect(pending.size).toBe(3);
  });

  it('drops what it holds for the series selected, and only those', async () => {
    const { held } = counters();
    const pending = new PendingCounts<'rule' | 'result'>((l) => `${l.rule}\0${l.result}`);
    const inc = (labels: Labels, n: number): void => {
      for (let i = 0; i < n; i++) pending.inc({ ...labels });
    };
    inc({ rule: 'a/gone', result: 'patched' }, 2);
    inc({ rule: 'a/gone', result: 'warned' }, 1);
    inc({ rule: 'a/kept', result: 'patched' }, 3);
    pending.drop((labels) => labels.rule === 'a/gone');
    pending.flushInto(held);
    expect(await values(held)).toEqual(['a/kept|patched=3']);
  });
});
