import { describe, expect, it } from 'vitest';
import { cpuClock, cpuClockKind } from './cpu-clock.js';

describe('cpuClock', () => {
  it("prefers the thread's own CPU time, in milliseconds", () => {
    let micros = 1_000;
    const proc = {
      threadCpuUsage: () => ({ user: micros, system: 500 }),
      cpuUsage: () => ({ user: 0, system: 0 }),
    };
    expect(cpuClockKind(proc)).toBe('thread');
    const clock = cpuClock(proc);
    expect(clock()).toBe(1.5);
    micros += 2_000;
    expect(clock()).toBe(3.5);
  });

  it("falls back to the process's CPU time (Node 20), then to wall time", () => {
    const proc = { cpuUsage: () => ({ user: 4_000, system: 1_000 }) };
    expect(cpuClockKind(proc)).toBe('process');
    expect(cpuClock(proc)()).toBe(5);
    expect(cpuClockKind({})).toBe('wall');
    expect(cpuClockKind(null)).toBe('wall');
    const wall = cpuClock(null);
    expect(Math.abs(wall() - performance.now())).toBeLessThan(50);
  });

  it('reads real CPU time on this platform, which a busy loop advances', () => {
    const clock = cpuClock();
    const start = clock();
    const until = performance.now() + 20;
    let spins = 0;
    while (performance.now() < until) spins += 1;
    expect(spins).toBeGreaterThan(0);
    expect(clock() - start).toBeGreaterThan(0);
  });
});
