import type { AskResolver } from '../engine/cluster/resolve-loop.js';
import { AnswerCache, DEFAULT_MAX_CACHED_ANSWERS } from './answer-cache.js';
import { createExternalResolver } from './external-resolver.js';
import { createExternalView, type ExternalView } from './external-view.js';
import { createProviderClient, type ProviderCaller } from './provider-client.js';
import { ProviderRegistry, type ClientCertLoader } from './provider-registry.js';

export interface ExternalDataOptions {
  /** The operator's namespace: its rules may use every provider; client-cert Secrets live there. */
  readonly systemNamespace: string;
  /** Milliseconds, monotonic. */
  readonly now: () => number;
  readonly loadClientCert?: ClientCertLoader;
  /** Cached answers at most (default 10,000). */
  readonly maxCachedAnswers?: number;
  /** The HTTPS client (tests may pass another). */
  readonly caller?: ProviderCaller;
  readonly onInvalidProvider?: (name: string, reason: string) => void;
  readonly onCall?: (
    provider: string,
    outcome: 'ok' | 'failed',
    ms: number,
    reason?: string,
  ) => void;
}

/** Everything external data is made of in one process, wired together. */
export interface ExternalData {
  /** Feed it ExternalDataProvider objects (the operator's informer does). */
  readonly registry: ProviderRegistry;
  /** The `external` half of the ClusterView (compose with composeClusterView). */
  readonly view: ExternalView;
  /** Resolves `external` asks (compose with composeAskResolvers). */
  readonly resolver: AskResolver;
  readonly cache: AnswerCache;
  /** Closes pooled provider connections. */
  close(): void;
}

export function createExternalData(options: ExternalDataOptions): ExternalData {
  const cache = new AnswerCache({
    maxEntries: options.maxCachedAnswers ?? DEFAULT_MAX_CACHED_ANSWERS,
    now: options.now,
  });
  const registry = new ProviderRegistry({
    now: options.now,
    ...(options.loadClientCert === undefined ? {} : { loadClientCert: options.loadClientCert }),
    ...(options.onInvalidProvider === undefined ? {} : { onInvalid: options.onInvalidProvider }),
    onChange: (name) => {
      cache.forget(name);
    },
  });
  const access = { registry, systemNamespace: options.systemNamespace };
  const caller = options.caller ?? createProviderClient();
  const resolver = createExternalResolver({
    ...access,
    cache,
    caller,
    now: options.now,
    ...(options.onCall === undefined ? {} : { onCall: options.onCall }),
  });
  return {
    registry,
    view: createExternalView(access, cache),
    resolver,
    cache,
    close: () => {
      caller.close();
    },
  };
}
