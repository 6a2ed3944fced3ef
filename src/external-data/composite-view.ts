import type {
  AskingRule,
  ClusterView,
  LookupAnswer,
  ObjectKey,
  PendingAsk,
} from '../engine/cluster/cluster-view.js';
import type { AskResolver } from '../engine/cluster/resolve-loop.js';
import type { ExternalView } from './external-view.js';

/** Why an object lookup has no answer when the operator runs without object caches. */
export const NO_OBJECT_CACHES =
  'the operator caches no objects for lookups (see --lookup-kinds in docs/lookups.md)';

/**
 * One ClusterView over the operator's two sources: `get` goes to the object caches (h35ops'
 * lookup caches), `external` to the external-data providers' answer cache. Either may be absent:
 * then its lookups are `unavailable` with a reason saying so.
 */
export function composeClusterView(
  objects: ClusterView | undefined,
  external: ExternalView | undefined,
): ClusterView {
  return {
    get(asker: AskingRule, key: ObjectKey): LookupAnswer {
      return objects === undefined
        ? { kind: 'unavailable', reason: NO_OBJECT_CACHES }
        : objects.get(asker, key);
    },
    external(asker: AskingRule, provider: string, key: string): LookupAnswer {
      return external === undefined
        ? { kind: 'unavailable', reason: 'external data is not configured in this process' }
        : external.external(asker, provider, key);
    },
  };
}

/**
 * One AskResolver over both: `object` asks (access reviews) go to `objects`, `external` asks
 * (provider calls) to `external`; both run at once and resolve() returns when both have.
 */
export function composeAskResolvers(
  objects: AskResolver | undefined,
  external: AskResolver | undefined,
): AskResolver {
  return {
    async resolve(asks: readonly PendingAsk[], timeLeftMs: number): Promise<void> {
      const objectAsks = asks.filter((ask) => ask.type === 'object');
      const externalAsks = asks.filter((ask) => ask.type === 'external');
      await Promise.all([
        objects !== undefined && objectAsks.length > 0
          ? objects.resolve(objectAsks, timeLeftMs)
          : undefined,
        external !== undefined && externalAsks.length > 0
          ? external.resolve(externalAsks, timeLeftMs)
          : undefined,
      ]);
    },
  };
}
