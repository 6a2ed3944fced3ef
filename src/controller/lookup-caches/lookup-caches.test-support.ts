import type { KubeObject, ListWatch } from '../../kube/informer.js';
import type { WatchHandle } from '../../kube/kube-client.js';
import type { LookupKind } from './lookup-kinds.js';

/** A list/watch per kind whose list answers when the test says so. */
export function scriptedSources(objects: Record<string, KubeObject[]>): {
  listWatch: (kind: LookupKind) => ListWatch;
  finish: (kind: string) => void;
} {
  const finishers = new Map<string, () => void>();
  return {
    listWatch: (kind) => ({
      list: (onPage): Promise<string> =>
        new Promise((resolve) => {
          finishers.set(kind.kind, () => {
            onPage(objects[kind.kind] ?? []);
            resolve('1');
          });
        }),
      watch: (): WatchHandle => ({ stop: () => undefined, done: new Promise(() => undefined) }),
    }),
    finish: (kind): void => {
      finishers.get(kind)?.();
    },
  };
}
