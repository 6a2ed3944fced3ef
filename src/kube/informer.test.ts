import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import {
  KubeApiError,
  type KubeClient,
  type RawWatchEvent,
  type WatchHandle,
} from './kube-client.js';
import {
  backoffDelay,
  collectionListWatch,
  createInformer,
  type KubeObject,
  type ListWatch,
} from './informer.js';

/** One scripted list: its pages (one page unless given as an array of pages) and resourceVersion. */
interface ListResult {
  readonly items?: readonly KubeObject[];
  readonly pages?: readonly (readonly KubeObject[])[];
  readonly resourceVersion: string;
}

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
    async list(onPage): Promise<string> {
      listCalls++;
      const next = lists.shift();
      if (next === undefined) return new Promise(() => undefined);
      if (next instanceof Error) throw next;
      // The first page is handed over at once, each further one a macrotask later.
      for (const [i, page] of (next.pages ?? [next.items ?? []]).entries()) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        onPage(page);
      }
      return next.resourceVersion;
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

  it('applies a list page by page and deletes what a relist no longer has', async () => {
    const { source, watches } = fakeSource([
      { pages: [[obj('r1', '1')], [obj('r2', '2')], [obj('r3', '3')]], resourceVersion: '10' },
      { pages: [[obj('r1', '1')], [obj('r3', '33')]], resourceVersion: '40' },
    ]);
    const informer = createInformer(source, { delay: () => Promise.resolve() });
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add ${(o.metadata as { name: string }).name}`));
    informer.on('update', (o) => events.push(`update ${(o.metadata as { name: string }).name}`));
    informer.on('delete', (o) => events.push(`delete ${(o.metadata as { name: string }).name}`));
    informer.start();
    // The first page is applied before the list ends; the informer is not synced yet.
    expect(events).toEqual(['add r1']);
    expect(informer.synced).toBe(false);
    await informer.waitForSync();
    expect(events).toEqual(['add r1', 'add r2', 'add r3']);
    expect(watches[0]?.rv).toBe('10');
    events.length = 0;
    watches[0]?.fail(new KubeApiError(410, 'too old resource version'));
    for (let i = 0; i < 5; i++) await tick();
    expect(events).toEqual(['update r3', 'delete r2']);
    expect(watches[1]?.rv).toBe('40');
    informer.stop();
  });

  it('caches only the retained form: get/list and the old object of update and delete', async () => {
    const { source, watches } = fakeSource([
      { items: [obj('r1', '1', { big: 'x'.repeat(100) })], resourceVersion: '10' },
    ]);
    const retain = (o: KubeObject): KubeObject => ({
      metadata: { ...(o.metadata as JsonObject), kept: true },
    });
    const informer = createInformer(source, { delay: () => Promise.resolve(), retain });
    const seen: JsonObject[] = [];
    informer.on('add', (o) => seen.push({ add: o }));
    informer.on('update', (o, old) => seen.push({ update: o, old }));
    informer.on('delete', (o) => seen.push({ delete: o }));
    informer.start();
    await informer.waitForSync();
    const retained = { metadata: { name: 'r1', namespace: 'a', resourceVersion: '1', kept: true } };
    expect(seen).toEqual([{ add: obj('r1', '1', { big: 'x'.repeat(100) }) }]);
    expect(informer.get('a/r1')).toEqual(retained);
    expect(informer.list()).toEqual([retained]);
    watches[0]?.emit({ type: 'MODIFIED', object: obj('r1', '2', { big: 'y' }) });
    expect(seen[1]).toEqual({ update: obj('r1', '2', { big: 'y' }), old: retained });
    watches[0]?.emit({ type: 'DELETED', object: obj('r1', '3') });
    expect(seen[2]).toEqual({
      delete: { metadata: { name: 'r1', namespace: 'a', resourceVersion: '2', kept: true } },
    });
    expect(informer.list()).toEqual([]);
    informer.stop();
  });

  it('computes capped exponential delays', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 250, 4000))).toEqual([
      250, 500, 1000, 2000, 4000, 4000,
    ]);
  });
});

describe('collectionListWatch', () => {
  it('hands a streamed list over in batches, with kind and apiVersion on every item', async () => {
    const requests: string[] = [];
    const client: KubeClient = {
      request: () => Promise.reject(new Error('not used')),
      list(path, query, onItem): Promise<JsonObject> {
        requests.push(`${path} ${JSON.stringify(query)}`);
        const head = { kind: 'WidgetList', apiVersion: 'example.com/v1' };
        for (let i = 0; i < 250; i++) onItem({ metadata: { name: `w${String(i)}` } }, head);
        return Promise.resolve({ ...head, metadata: { resourceVersion: '77' } });
      },
      watch: () => ({ stop: () => undefined, done: Promise.resolve() }),
    };
    const batches: KubeObject[][] = [];
    const source = collectionListWatch(client, '/apis/example.com/v1/widgets', { x: 'y' });
    expect(await source.list((items) => batches.push([...items]))).toBe('77');
    expect(requests).toEqual(['/apis/example.com/v1/widgets {"x":"y"}']);
    expect(batches.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(batches[2]?.[49]).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w249' },
    });
  });
});
