import { describe, expect, it } from 'vitest';
import { KubemodError } from '../errors/catalog.js';
import { FairTurns, type TurnTaker } from './fair-turns.js';

const BUDGET_MS = 2;

/** Turns of the loop the test hands out one at a time, on a clock it moves. */
interface ManualTurns {
  readonly turns: FairTurns;
  /** The clock, in milliseconds. */
  now: number;
  /** Turns asked for and not yet taken. */
  readonly asked: () => number;
  /** Takes one turn of the loop and lets the slices it grants run. */
  readonly turn: () => Promise<void>;
}

function manualTurns(): ManualTurns {
  const pending: (() => void)[] = [];
  const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const state: ManualTurns = {
    turns: new FairTurns(
      () => state.now,
      () => new Promise<void>((resolve) => pending.push(resolve)),
      BUDGET_MS,
    ),
    now: 0,
    asked: () => pending.length,
    turn: async () => {
      await flush();
      pending.shift()?.();
      await flush();
    },
  };
  return state;
}

/**
 * An evaluation of `slices` slices, each taking `sliceMs` of the test's clock; records its id in
 * `ran` at each slice, and `<id> <error kind>` if a turn is refused.
 */
async function evaluation(
  bed: ManualTurns,
  taker: TurnTaker,
  id: string,
  ran: string[],
  slices = 1,
  sliceMs = 0,
): Promise<void> {
  try {
    await taker.begin();
    for (let slice = 0; slice < slices; slice++) {
      if (slice > 0) await taker.next();
      bed.now += sliceMs;
      ran.push(id);
    }
  } catch (err) {
    ran.push(`${id} ${err instanceof KubemodError ? err.kind : 'other'}`);
  } finally {
    taker.end();
  }
}

describe('FairTurns', () => {
  it('runs a first slice at the next turn of the loop, not at once', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    const done = evaluation(bed, bed.turns.taker('a', 1e9), 'a', ran);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    expect(bed.asked()).toBe(1);
    await bed.turn();
    await done;
    expect(ran).toEqual(['a']);
    expect(bed.asked()).toBe(0);
  });

  it('runs the quick evaluations that arrived together back to back, in one turn', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    const all = ['a', 'b', 'c', 'a', 'd'].map((ns, i) =>
      evaluation(bed, bed.turns.taker(ns, 1e9), `${ns}${String(i)}`, ran),
    );
    await bed.turn();
    await Promise.all(all);
    // Round-robin: a's second waits for the other namespaces.
    expect(ran).toEqual(['a0', 'b1', 'c2', 'd4', 'a3']);
    expect(bed.asked()).toBe(0);
    expect(bed.turns.size).toBe(0);
  });

  it('ends a turn once its budget is spent, and the rest runs at the next one', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    // Each slice takes 1 ms: a turn runs its first slice, then one more within its 2 ms.
    const all = ['a', 'b', 'c', 'd', 'e'].map((ns) =>
      evaluation(bed, bed.turns.taker(ns, 1e9), ns, ran, 1, 1),
    );
    await bed.turn();
    expect(ran).toEqual(['a', 'b']);
    await bed.turn();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    await bed.turn();
    await Promise.all(all);
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('serves the namespaces in turn, each first come first served', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    const all: Promise<void>[] = [];
    const wait = (ns: string, id: string): void => {
      // Slices as long as a turn's budget: one slice per turn.
      all.push(evaluation(bed, bed.turns.taker(ns, 1e9), id, ran, 1, BUDGET_MS));
    };
    for (let i = 0; i < 4; i++) wait('flood', `flood-${String(i)}`);
    wait('quiet', 'quiet-0');
    wait('other', 'other-0');
    wait('quiet', 'quiet-1');
    for (let i = 0; i < 7; i++) {
      await bed.turn();
      expect(ran).toHaveLength(i + 1);
    }
    await Promise.all(all);
    expect(ran).toEqual([
      'flood-0',
      'quiet-0',
      'other-0',
      'flood-1',
      'quiet-1',
      'flood-2',
      'flood-3',
    ]);
    expect(bed.turns.size).toBe(0);
  });

  it("a yielding evaluation lets the other namespaces' slices run before its next", async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    const long = evaluation(bed, bed.turns.taker('flood', 1e9), 'long', ran, 3, BUDGET_MS);
    const others = ['b', 'c'].map((ns) =>
      evaluation(bed, bed.turns.taker(ns, 1e9), ns, ran, 1, BUDGET_MS),
    );
    for (let i = 0; i < 5; i++) await bed.turn();
    await Promise.all([long, ...others]);
    expect(ran).toEqual(['long', 'b', 'c', 'long', 'long']);
  });

  it('a namespace that empties and comes back joins at the end of the round', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    const all: Promise<void>[] = [];
    const wait = (ns: string): void => {
      all.push(evaluation(bed, bed.turns.taker(ns, 1e9), ns, ran, 1, BUDGET_MS));
    };
    wait('a');
    wait('b');
    wait('b');
    await bed.turn(); // a
    wait('a');
    await bed.turn(); // b
    await bed.turn(); // a (joined after b)
    await bed.turn(); // b
    await Promise.all(all);
    expect(ran).toEqual(['a', 'b', 'a', 'b']);
  });

  it.each([
    ['past its deadline when a turn comes', 50, 50],
    ['long past its deadline', 50, 5000],
  ])('rejects a waiter %s, wherever it is in its queue', async (_name, deadline, now) => {
    const bed = manualTurns();
    const ran: string[] = [];
    const all = [
      evaluation(bed, bed.turns.taker('ns', 1e9), 'first', ran, 1, BUDGET_MS),
      evaluation(bed, bed.turns.taker('ns', deadline), 'late', ran, 1, BUDGET_MS),
      evaluation(bed, bed.turns.taker('ns', 1e9), 'third', ran, 1, BUDGET_MS),
    ];
    bed.now = now;
    await bed.turn();
    expect(ran).toEqual(['late REQUEST_DEADLINE', 'first']);
    await bed.turn();
    await Promise.all(all);
    expect(ran).toEqual(['late REQUEST_DEADLINE', 'first', 'third']);
    expect(bed.turns.size).toBe(0);
  });

  it('rejects an evaluation whose next slice would start past its deadline', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    // Its first slice runs at 0 and takes 60 ms: its second turn comes after its deadline (50).
    const slow = evaluation(bed, bed.turns.taker('ns', 50), 'slow', ran, 2, 60);
    await bed.turn();
    await bed.turn();
    await slow;
    expect(ran).toEqual(['slow', 'slow REQUEST_DEADLINE']);
  });

  it('an evaluation that ends without its turn does not give away the turn of another', async () => {
    const bed = manualTurns();
    const ran: string[] = [];
    const refused = bed.turns.taker('ns', 10);
    const refusedDone = evaluation(bed, refused, 'refused', ran);
    bed.now = 20;
    await bed.turn();
    await refusedDone;
    expect(ran).toEqual(['refused REQUEST_DEADLINE']);
    // `holder` takes the turn and keeps it; the refused evaluation's end() must change nothing.
    const holder = bed.turns.taker('a', 1e9);
    const holding = holder.begin();
    const waiter = evaluation(bed, bed.turns.taker('b', 1e9), 'waiter', ran);
    await bed.turn();
    await holding;
    refused.end();
    await bed.turn();
    expect(ran).toEqual(['refused REQUEST_DEADLINE']);
    holder.end();
    await bed.turn();
    await waiter;
    expect(ran).toEqual(['refused REQUEST_DEADLINE', 'waiter']);
  });
});
