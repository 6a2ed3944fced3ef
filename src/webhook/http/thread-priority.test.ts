import { describe, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.js';
import {
  createHelperThreadPriority,
  keepHelperThreadsLowered,
  RELOWER_INTERVAL_MS,
  type ThreadPriorityIo,
} from './thread-priority.js';

interface FakeThreads {
  readonly io: ThreadPriorityIo;
  readonly nices: Map<number, number>;
  readonly calls: [number, number][];
}

const MAIN = 100;

/** A process whose threads are `ids` (MAIN first), all at `nice`; `fail` makes setNice throw. */
function fakeThreads(
  ids: number[],
  options: { nice?: number; fail?: (id: number) => string | undefined; listed?: boolean } = {},
): FakeThreads {
  const nices = new Map(ids.map((id) => [id, options.nice ?? 0]));
  const calls: [number, number][] = [];
  const io: ThreadPriorityIo = {
    threadIds: () => (options.listed === false ? undefined : [...nices.keys()]),
    currentThreadId: () => (options.listed === false ? undefined : MAIN),
    getNice: (id) => nices.get(id) ?? 0,
    setNice: (id, nice) => {
      calls.push([id, nice]);
      const code = options.fail?.(id);
      if (code !== undefined) {
        throw Object.assign(new Error('A system error occurred'), {
          code: 'ERR_SYSTEM_ERROR',
          info: { code },
        });
      }
      nices.set(id, nice);
    },
  };
  return { io, nices, calls };
}

function logLines(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return {
    lines,
    logger: createLogger({ level: 'debug', destination: { write: (l: string) => lines.push(l) } }),
  };
}

describe('createHelperThreadPriority', () => {
  it('sets every thread but the calling (main) one to the nice value, new threads included', () => {
    const threads = fakeThreads([MAIN, 101, 102, 103]);
    const { lines, logger } = logLines();
    const priority = createHelperThreadPriority({ io: threads.io, nice: 19, logger });
    priority.lower();
    expect([...threads.nices]).toEqual([
      [MAIN, 0],
      [101, 19],
      [102, 19],
      [103, 19],
    ]);
    expect(lines.join('')).toContain('"threads":3');
    expect(lines.join('')).toContain('helper threads run at a lower priority');
    threads.nices.set(104, 0); // a thread started since (the dry-run worker)
    priority.lower();
    expect(threads.nices.get(104)).toBe(19);
    expect(threads.nices.get(MAIN)).toBe(0);
  });

  it('does nothing with nice 0, or where threads cannot be listed', () => {
    const off = fakeThreads([MAIN, 101]);
    createHelperThreadPriority({ io: off.io, nice: 0, logger: logLines().logger }).lower();
    expect(off.calls).toEqual([]);
    const unlisted = fakeThreads([MAIN, 101], { listed: false });
    createHelperThreadPriority({ io: unlisted.io, nice: 19, logger: logLines().logger }).lower();
    expect(unlisted.calls).toEqual([]);
  });

  it('never goes below the main thread’s own nice value (that would need a privilege)', () => {
    const threads = fakeThreads([MAIN, 101], { nice: 12 });
    createHelperThreadPriority({ io: threads.io, nice: 5, logger: logLines().logger }).lower();
    expect(threads.calls).toEqual([[101, 12]]);
  });

  it('skips a thread that ended between the listing and the call', () => {
    const threads = fakeThreads([MAIN, 101, 102, 103], {
      fail: (id) => (id === 102 ? 'ESRCH' : undefined),
    });
    const { lines, logger } = logLines();
    createHelperThreadPriority({ io: threads.io, nice: 19, logger }).lower();
    expect(threads.nices.get(101)).toBe(19);
    expect(threads.nices.get(103)).toBe(19);
    expect(lines.join('')).not.toContain('"level":"warn"');
  });

  it('warns once and stops trying when the system refuses (EPERM, EACCES)', () => {
    const threads = fakeThreads([MAIN, 101, 102], {
      fail: () => 'EPERM',
    });
    const { lines, logger } = logLines();
    const priority = createHelperThreadPriority({ io: threads.io, nice: 19, logger });
    priority.lower();
    priority.lower();
    expect(threads.calls).toEqual([[101, 19]]);
    const warnings = lines.filter((line) => line.includes('"level":"warn"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cannot lower the priority of helper threads');
    expect(warnings[0]).toContain('EPERM');
  });
});

describe('keepHelperThreadsLowered', () => {
  it('lowers now and on every tick until stopped', () => {
    let lowered = 0;
    let tick: (() => void) | undefined;
    let period = 0;
    let stopped = false;
    const stop = keepHelperThreadsLowered(
      {
        lower: () => {
          lowered += 1;
        },
      },
      (run, ms) => {
        tick = run;
        period = ms;
        return () => {
          stopped = true;
        };
      },
    );
    expect(lowered).toBe(1);
    expect(period).toBe(RELOWER_INTERVAL_MS);
    tick?.();
    tick?.();
    expect(lowered).toBe(3);
    stop();
    expect(stopped).toBe(true);
  });
});
