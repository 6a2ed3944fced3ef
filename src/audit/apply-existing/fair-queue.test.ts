import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.js';

function drain(queue: FairQueue, busy?: (ns: string) => boolean): string[] {
  const taken: string[] = [];
  for (let job = queue.next(busy); job !== undefined; job = queue.next(busy)) taken.push(job.key);
  return taken;
}

describe('FairQueue', () => {
  it('serves namespaces round-robin, each FIFO, whatever their queue length', () => {
    const queue = new FairQueue();
    for (let i = 1; i <= 4; i++) queue.add('a', `a/${String(i)}`);
    queue.add('b', 'b/1');
    queue.add('c', 'c/1');
    queue.add('c', 'c/2');
    expect(queue.size).toBe(7);
    expect(drain(queue)).toEqual(['a/1', 'b/1', 'c/1', 'a/2', 'c/2', 'a/3', 'a/4']);
    expect(queue.size).toBe(0);
  });

  it('gives a namespace that joins late the next turn, and one that re-joins no head start', () => {
    const queue = new FairQueue();
    for (let i = 1; i <= 100; i++) queue.add('a', `a/${String(i)}`);
    expect(queue.next()?.key).toBe('a/1');
    expect(queue.next()?.key).toBe('a/2');
    queue.add('b', 'b/1');
    expect(queue.next()?.key).toBe('b/1');
    expect(queue.next()?.key).toBe('a/3');

    // c was served and left the queue (its job runs); d waits; c's next job queues behind d.
    const rejoin = new FairQueue();
    rejoin.add('c', 'c/1');
    expect(rejoin.next()?.key).toBe('c/1');
    rejoin.add('d', 'd/1');
    rejoin.add('c', 'c/2');
    expect(drain(rejoin)).toEqual(['d/1', 'c/2']);
  });

  it('queues a key once, puts a resumed key first, and skips busy namespaces', () => {
    const queue = new FairQueue();
    queue.add('a', 'a/1');
    queue.add('a', 'a/2');
    queue.add('a', 'a/1');
    queue.addFront('a', 'a/2');
    queue.addFront('a', 'a/0');
    queue.add('b', 'b/1');
    expect(queue.size).toBe(4);
    expect(queue.hasWaiting((ns) => ns === 'a')).toBe(true);
    expect(drain(queue, (ns) => ns === 'b')).toEqual(['a/0', 'a/2', 'a/1']);
    expect(queue.hasWaiting((ns) => ns === 'b')).toBe(false);
    expect(drain(queue)).toEqual(['b/1']);
    queue.add('c', 'c/1');
    queue.clear();
    expect(queue.next()).toBeUndefined();
  });
});
