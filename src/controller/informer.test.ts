import { describe, expect, it } from 'vitest';
import { KubeApiError, type RawWatchEvent, type WatchHandle } from './kube-client.js';
import {
  backoffDelay,
  createInformer,
  type KubeObject,
  type ListResult,
  type ListWatch,
} from './informer.js';

function obj(name: string, rv: string, extra: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace: 'a', resourceVersion: rv }, spec: extra };
}

interface FakeWatch {
  readonly rv: string;
  emit(event: RawWatchEvent): void;
  close(): void;
  fail(err: unknown): void;
}

/** Scripted list/watch: each list() pops the next result (or error); watches are exposed to the test. */
function fakeSource(lists: (ListResult | Error)[]): {
  source: ListWatch;
  watches: FakeWatch[];
  listCalls: () => number;
} {
  const watches: FakeWatch[] = [];
  let listCalls = 0;
  const source: ListWatch = {
    list(): Promise<ListResult> {
      listCalls++;
      const next = lists.shift();
      if (next === undefined) return new Promise(() => undefined);
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    watch(rv, onEvent): WatchHandle {
      let resolve: () => void = () => undefined;
      let reject: (err: unknown) => void = () => undefined;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      watches.push({ rv, emit: onEvent, close: resolve, fail: reject });
      return { stop: resolve, done };
    },
  };
  return { source, watches, listCalls: () => listCalls };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createInformer', () => {
  it('lists, syncs, applies watch events and re-watches from the last resourceVersion', async () => {
    const { source, watches } = fakeSource([{ items: [obj('r1', '1')], resourceVersion: '10' }]);
    const informer = createInformer(source, { delay: () => Promise.resolve() });
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${JSON.stringify(o.metadata)}`));
    informer.on('update', (o, old) =>
      seen.push(`update ${(old.metadata as { resourceVersion: string }).resourceVersion}`),
    );
    informer.on('delete', () => seen.push('delete'));
    expect(informer.synced).toBe(false);
    informer.start();
    await informer.waitForSync();
    expect(informer.synced).toBe(true);
    expect(watches[0]?.rv).toBe('10');
    watches[0]?.emit({ type: 'MODIFIED', object: obj('r1', '11') });
    watches[0]?.emit({ type: 'ADDED', object: obj('r2', '12') });
    watches[0]?.emit({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } });
    watches[0]?.emit({ type: 'DELETED', object: obj('r1', '16') });
    watches[0]?.close();
    await tick();
    expect(watches[1]?.rv).toBe('16');
    expect(seen).toHaveLength(4);
    expect(informer.list().map((o) => (o.metadata as { name: string }).name)).toEqual(['r2']);
    informer.stop();
  });

  it('relists without delay when the watch expires (410) and emits only the differences', async () => {
    const { source, watches, listCalls } = fakeSource([
      { items: [obj('r1', '1'), obj('r2', '2')], resourceVersion: '10' },
      { items: [obj('r1', '1'), obj('r3', '30')], resourceVersion: '31' },
    ]);
    const delays: number[] = [];
    const informer = createInformer(source, {
      delay: (ms) => (delays.push(ms), Promise.resolve()),
    });
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add ${(o.metadata as { name: string }).name}`));
    informer.on('update', (o) => events.push(`update ${(o.metadata as { name: string }).name}`));
    informer.on('delete', (o) => events.push(`delete ${(o.metadata as { name: string }).name}`));
    informer.start();
    await informer.waitForSync();
    events.length = 0;
    watches[0]?.fail(new KubeApiError(410, 'too old resource version'));
    await tick();
    await tick();
    expect(listCalls()).toBe(2);
    expect(delays).toEqual([]);
    expect(events).toEqual(['add r3', 'delete r2']);
    expect(watches[1]?.rv).toBe('31');
    informer.stop();
  });

  it('backs off exponentially while listing fails and resets after a success', async () => {
    const down = new KubeApiError(0, 'connection refused');
    const { source, watches } = fakeSource([
      down,
      down,
      down,
      { items: [], resourceVersion: '5' },
      down,
      { items: [], resourceVersion: '6' },
    ]);
    const delays: number[] = [];
    const errors: number[] = [];
    const informer = createInformer(source, {
      delay: (ms) => (delays.push(ms), Promise.resolve()),
      backoff: { initialMs: 100, maxMs: 300 },
    });
    informer.on('error', (_err, retry) => errors.push(retry));
    informer.start();
    await informer.waitForSync();
    expect(delays).toEqual([100, 200, 300]);
    watches[0]?.fail(new KubeApiError(0, 'connection reset'));
    for (let i = 0; i < 5; i++) await tick();
    expect(delays).toEqual([100, 200, 300, 100, 200]);
    expect(errors).toEqual(delays);
    expect(watches[1]?.rv).toBe('6');
    informer.stop();
  });

  it('is not synced while the first list keeps failing', async () => {
    const { source } = fakeSource([new KubeApiError(503, 'unavailable')]);
    const informer = createInformer(source, { delay: () => new Promise(() => undefined) });
    informer.start();
    await tick();
    expect(informer.synced).toBe(false);
    informer.stop();
  });

  it('computes capped exponential delays', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 250, 4000))).toEqual([
      250, 500, 1000, 2000, 4000, 4000,
    ]);
  });
});
