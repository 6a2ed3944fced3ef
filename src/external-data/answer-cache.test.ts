import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.js';

function cache(maxEntries = 100): { cache: AnswerCache; clock: { now: number } } {
  const clock = { now: 1_000 };
  return { cache: new AnswerCache({ maxEntries, now: () => clock.now }), clock };
}

describe('AnswerCache', () => {
  it('keeps an answer for its TTL and no longer (injected clock)', () => {
    const { cache: c, clock } = cache();
    c.set('p', '1', 'k', { kind: 'value', value: 'v' }, 60);
    clock.now += 59_999;
    expect(c.get('p', '1', 'k')).toEqual({ kind: 'value', value: 'v' });
    clock.now += 1;
    expect(c.get('p', '1', 'k')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('keeps failures for their own (shorter) TTL', () => {
    const { cache: c, clock } = cache();
    c.set('p', '1', 'ok', { kind: 'absent' }, 60);
    c.set('p', '1', 'bad', { kind: 'failed', reason: 'provider down: x' }, 5);
    clock.now += 5_000;
    expect(c.get('p', '1', 'bad')).toBeUndefined();
    expect(c.get('p', '1', 'ok')).toEqual({ kind: 'absent' });
  });

  it('misses when the provider changed (another resourceVersion)', () => {
    const { cache: c } = cache();
    c.set('p', '1', 'k', { kind: 'value', value: 1 }, 60);
    expect(c.get('p', '2', 'k')).toBeUndefined();
    expect(c.get('p', '1', 'k')).toBeUndefined();
  });

  it('keys by provider and key, and forgets one provider only', () => {
    const { cache: c } = cache();
    c.set('p', '1', 'k', { kind: 'value', value: 1 }, 60);
    c.set('p2', '1', 'k', { kind: 'value', value: 2 }, 60);
    c.set('p', '1', 'k\u0000x', { kind: 'value', value: 3 }, 60);
    expect(c.get('p2', '1', 'k')).toEqual({ kind: 'value', value: 2 });
    expect(c.get('p', '1', 'k\u0000x')).toEqual({ kind: 'value', value: 3 });
    c.forget('p');
    expect(c.get('p', '1', 'k')).toBeUndefined();
    expect(c.get('p', '1', 'k\u0000x')).toBeUndefined();
    expect(c.get('p2', '1', 'k')).toEqual({ kind: 'value', value: 2 });
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const { cache: c } = cache(3);
    for (const k of ['a', 'b', 'c']) c.set('p', '1', k, { kind: 'value', value: k }, 60);
    expect(c.get('p', '1', 'a')).toBeDefined(); // a is now the most recently used
    c.set('p', '1', 'd', { kind: 'value', value: 'd' }, 60);
    expect(c.size).toBe(3);
    expect(c.get('p', '1', 'b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((k) => c.get('p', '1', k)?.kind)).toEqual([
      'value',
      'value',
      'value',
    ]);
    for (let i = 0; i < 1_000; i++) c.set('p', '1', `k${String(i)}`, { kind: 'absent' }, 60);
    expect(c.size).toBe(3);
  });

  it('does not keep an answer with a TTL of 0', () => {
    const { cache: c } = cache();
    c.set('p', '1', 'k', { kind: 'absent' }, 0);
    expect(c.get('p', '1', 'k')).toBeUndefined();
  });
});
