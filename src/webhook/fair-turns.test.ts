import { describe, expect, it } from 'vitest';
import { KubemodError } from '../errors/catalog.js';
import { FairTurns } from './fair-turns.js';

/** Turns the test hands out one at a time, on a clock it sets. */
function manualTurns(): {
  turns: FairTurns;
  setNow: (ms: number) => void;
  /** Lets the pump take one turn and the granted evaluation run. */
  step: () => Promise<void>;
} {
  let now = 0;
  const pending: (() => void)[] = [];
  const turns = new FairTurns(
    () => now,
    () => new Promise<void>((resolve) => pending.push(resolve)),
  );
  const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  return {
    turns,
    setNow: (ms) => {
      now = ms;
    },
    step: async () => {
      await flush();
      pending.shift()?.();
      await flush();
    },
  };
}

describe('FairTurns', () => {
  it('starts an evaluation at once when nobody waits', () => {
    const { turns } = manualTurns();
    expect(turns.enter('a', 100)).toBeUndefined();
  });

  it('serves the namespaces in turn, each first come first served', async () => {
    const { turns, step } = manualTurns();
    const order: string[] = [];
    const wait = (ns: string, id: string): void => {
      void turns.next(ns, 1e9).then(() => order.push(id));
    };
    for (let i = 0; i < 4; i++) wait('flood', `flood-${String(i)}`);
    wait('quiet', 'quiet-0');
    wait('other', 'other-0');
    wait('quiet', 'quiet-1');
    for (let i = 0; i < 7; i++) await step();
    expect(order).toEqual([
      'flood-0',
      'quiet-0',
      'other-0',
      'flood-1',
      'quiet-1',
      'flood-2',
      'flood-3',
    ]);
    expect(turns.size).toBe(0);
  });

  it('a namespace that empties and comes back joins at the end of the round', async () => {
    const { turns, step } = manualTurns();
    const order: string[] = [];
    const wait = (ns: string): void => {
      void turns.next(ns, 1e9).then(() => order.push(ns));
    };
    wait('a');
    wait('b');
    wait('b');
    await step(); // a
    wait('a');
    await step(); // b
    await step(); // a (joined after b)
    await step(); // b
    expect(order).toEqual(['a', 'b', 'a', 'b']);
  });

  it.each([
    ['past its deadline when a turn comes', 50, 50],
    ['long past its deadline', 50, 5000],
  ])('rejects a waiter %s, wherever it is in its queue', async (_name, deadline, now) => {
    const { turns, setNow, step } = manualTurns();
    const outcomes: string[] = [];
    const wait = (id: string, deadlineAt: number): void => {
      turns.next('ns', deadlineAt).then(
        () => outcomes.push(`${id} ran`),
        (err: unknown) => {
          outcomes.push(`${id} ${err instanceof KubemodError ? err.kind : 'other'}`);
        },
      );
    };
    wait('first', 1e9);
    wait('late', deadline);
    wait('third', 1e9);
    setNow(now);
    await step();
    expect(outcomes).toEqual(['late REQUEST_DEADLINE', 'first ran']);
    await step();
    expect(outcomes).toEqual(['late REQUEST_DEADLINE', 'first ran', 'third ran']);
    expect(turns.size).toBe(0);
  });
});
