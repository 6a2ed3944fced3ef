import { describe, expect, it } from 'vitest';
import { KubemodError } from '../errors/catalog.js';
import { charge, exempt, withMeter } from './active-meter.js';
import { WorkMeter } from './work-meter.js';

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let now = 0;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

function kindOf(work: () => unknown): string {
  try {
    work();
    return 'ok';
  } catch (err) {
    return err instanceof KubemodError ? err.kind : String(err);
  }
}

describe('WorkMeter', () => {
  it('says whether a time backstop has started: not before its first look at the clock', () => {
    let reads = 0;
    const meter = new WorkMeter({}, () => {
      reads += 1;
      return 0;
    });
    expect(meter.timing).toBe(false);
    meter.beginRule('ns', 'ns/small');
    meter.charge(100);
    meter.endRule();
    // A small rule never reads the clock, so a pause after it has nothing to subtract.
    expect([meter.timing, reads]).toEqual([false, 0]);
    meter.beginRule('ns', 'ns/large');
    meter.charge(5000);
    expect(meter.timing).toBe(true);
    meter.endRule();
    expect(reads).toBeGreaterThan(0);
    meter.charge(5000);
    expect(meter.timing).toBe(true);
  });

  it('stops at a heap ceiling, looked at with the clock and before one large value', () => {
    let used = 0;
    const looks: number[] = [];
    const heap = {
      mb: 10,
      reached: (extra: number): boolean => {
        looks.push(extra);
        return used + extra > 10 * 1024 * 1024;
      },
    };
    const meter = new WorkMeter({ requestUnits: 1e9, heap }, () => 0);
    for (let i = 0; i < 4095; i += 1) meter.charge(1);
    expect(looks).toEqual([]); // not every charge: every CLOCK_EVERY (4096) units
    meter.charge(1);
    expect(looks).toEqual([0]);
    meter.chargeBytes(4 * 1024 * 1024); // its units pass CLOCK_EVERY; 8 MiB as UTF-16 fits
    expect(looks).toEqual([0, 0, 8 * 1024 * 1024]);
    expect(() => {
      meter.chargeBytes(6 * 1024 * 1024);
    }).toThrow(
      'request stopped: the heap in use passed its 10 MB ceiling (the input is too large or the rule builds too much)',
    );
    expect(
      kindOf(() => {
        meter.charge(1);
      }),
    ).toBe('WORK_LIMIT'); // sticky

    const inRule = new WorkMeter({ requestUnits: 1e9, ruleUnits: 1e9, heap }, () => 0);
    used = 11 * 1024 * 1024;
    inRule.beginRule('team', 'team/big');
    expect(() => {
      for (let i = 0; i < 4096; i += 1) inRule.charge(1);
    }).toThrow('rule stopped: the heap in use passed its 10 MB ceiling');
    inRule.endRule();
  });

  it('throws WORK_LIMIT past the units of its scope, and stays exhausted', () => {
    const meter = new WorkMeter({ requestUnits: 100 });
    meter.charge(100);
    expect(
      kindOf(() => {
        meter.charge(1);
      }),
    ).toBe('WORK_LIMIT');
    expect(
      kindOf(() => {
        meter.charge(0);
      }),
    ).toBe('WORK_LIMIT');
  });

  it('gives each rule its own allowance from its namespace pool', () => {
    const meter = new WorkMeter({ ruleUnits: 100, namespaceUnits: 250 });
    // A runaway rule costs its pool its allowance only: the next rules still run.
    expect(
      kindOf(() => {
        meter.runRule('a', 'a/1', () => {
          meter.charge(1_000);
        });
      }),
    ).toBe('WORK_LIMIT');
    expect(
      kindOf(() => {
        meter.runRule('a', 'a/2', () => {
          meter.charge(100);
        });
      }),
    ).toBe('ok');
    // 50 units left in pool a: that is this rule's allowance.
    expect(
      kindOf(() => {
        meter.runRule('a', 'a/3', () => {
          meter.charge(60);
        });
      }),
    ).toBe('WORK_LIMIT');
    expect(
      kindOf(() => {
        meter.runRule('a', 'a/4', () => undefined);
      }),
    ).toBe('WORK_LIMIT');
    // Another namespace (kubemod-system) has a pool of its own.
    expect(
      kindOf(() => {
        meter.runRule('kubemod-system', 'k/1', () => {
          meter.charge(100);
        });
      }),
    ).toBe('ok');
  });

  it('cuts a rule off at its time budget, checking the clock every few thousand units', () => {
    const clock = manualClock();
    const meter = new WorkMeter({ ruleMillis: 10, ruleUnits: 1_000_000 }, clock.now);
    const outcome = kindOf(() => {
      meter.runRule('a', 'a/slow', () => {
        for (let i = 0; i < 100; i++) {
          clock.advance(1);
          meter.charge(1_000);
        }
      });
    });
    expect(outcome).toBe('WORK_LIMIT');
    // A small rule never reads the clock, so a pause (GC) in it cannot fail it.
    const small = kindOf(() => {
      meter.runRule('b', 'b/small', () => {
        clock.advance(50);
        meter.charge(100);
      });
    });
    expect(small).toBe('ok');
  });

  it('keeps a time budget per namespace', () => {
    const clock = manualClock();
    const meter = new WorkMeter({ ruleMillis: 10, namespaceMillis: 15 }, clock.now);
    for (const rule of ['a/1', 'a/2']) {
      meter.runRule('a', rule, () => {
        meter.charge(5_000); // past CLOCK_EVERY: the rule starts its clock
        clock.advance(8);
      });
    }
    expect(
      kindOf(() => {
        meter.runRule('a', 'a/3', () => undefined);
      }),
    ).toBe('WORK_LIMIT');
    expect(
      kindOf(() => {
        meter.runRule('kubemod-system', 'k/1', () => undefined);
      }),
    ).toBe('ok');
  });

  it('does not count exempted work against the deadlines', () => {
    const clock = manualClock();
    const meter = new WorkMeter({ ruleMillis: 10, namespaceMillis: 15 }, clock.now);
    const outcome = kindOf(() => {
      withMeter(meter, () => {
        meter.runRule('a', 'a/new', () => {
          exempt(() => {
            clock.advance(100);
          });
          meter.charge(5_000); // reads the clock
        });
      });
    });
    expect(outcome).toBe('ok');
    expect(
      kindOf(() => {
        meter.runRule('a', 'a/next', () => undefined);
      }),
    ).toBe('ok');
  });

  it('charges the active meter only, and nothing outside withMeter', () => {
    expect(() => {
      charge(1e12);
    }).not.toThrow();
    const meter = new WorkMeter({ requestUnits: 10 });
    expect(
      kindOf(() => {
        withMeter(meter, () => {
          charge(11);
        });
      }),
    ).toBe('WORK_LIMIT');
    expect(() => {
      charge(1e12);
    }).not.toThrow();
  });
});

describe('WorkMeter.render: the cap of one template render', () => {
  const stillClock = (): number => 0;
  const limits = { ruleUnits: 1000, renderUnits: 100, namespaceUnits: 10_000 };

  function thrown(work: () => unknown): unknown {
    try {
      work();
    } catch (err) {
      return err;
    }
    return undefined;
  }

  it('gives back what a render did not spend, and charges what it did to the rule', () => {
    const meter = new WorkMeter(limits, stillClock);
    meter.beginRule('ns', 'rule');
    meter.charge(10);
    const value = meter.render(() => {
      expect(meter.left).toBe(100);
      meter.charge(60);
      return 'out';
    });
    expect(value).toBe('out');
    expect(meter.left).toBe(1000 - 10 - 60);
    meter.endRule();
  });

  it('stops a render at its cap, not at the rule allowance, and leaves the rule exhausted', () => {
    const meter = new WorkMeter(limits, stillClock);
    meter.beginRule('ns', 'rule');
    let spent = 0;
    const err = thrown(() =>
      meter.render(() => {
        for (;;) {
          meter.charge(1);
          spent += 1;
        }
      }),
    );
    expect(err).toBeInstanceOf(KubemodError);
    expect((err as KubemodError).kind).toBe('WORK_LIMIT');
    expect((err as KubemodError).message).toContain('template exceeded its 100 unit work budget');
    expect(spent).toBe(100);
    // Sticky: the rule cannot carry on after catching the error.
    expect(
      thrown(() => {
        meter.charge(1);
      }),
    ).toBeInstanceOf(KubemodError);
    meter.endRule();
    // The namespace pool is charged the rule's whole allowance, as for any rule that went over.
    meter.beginRule('ns', 'next');
    expect(meter.left).toBe(1000);
    meter.endRule();
  });

  it('caps a render inside a render by the outer cap only', () => {
    const meter = new WorkMeter(limits, stillClock);
    meter.beginRule('ns', 'rule');
    meter.render(() => {
      meter.charge(50);
      meter.render(() => {
        expect(meter.left).toBe(50);
        meter.charge(20);
      });
      expect(meter.left).toBe(30);
    });
    expect(meter.left).toBe(1000 - 70);
    meter.endRule();
  });

  it('leaves a render alone when the rule has less left than the cap', () => {
    const meter = new WorkMeter(limits, stillClock);
    meter.beginRule('ns', 'rule');
    meter.charge(950);
    const err = thrown(() => {
      meter.render(() => {
        meter.charge(60);
      });
    });
    expect((err as KubemodError).message).toContain('rule exceeded its 1000 unit work budget');
    meter.endRule();
  });
});
