import type { AskResolver } from '../engine/cluster/resolve-loop.js';
import type { AnswerCache, CachedAnswer } from './answer-cache.js';
import { providerForAsk, type ExternalAccess } from './external-view.js';
import { callTimeoutMs, type ProviderCaller } from './provider-client.js';
import type { KeyAnswer } from './provider-protocol.js';
import { PROVIDER_LIMITS, type ExternalDataProvider } from './provider-types.js';

export interface ExternalResolverOptions extends ExternalAccess {
  readonly cache: AnswerCache;
  readonly caller: ProviderCaller;
  /** Told about each call: provider name, outcome and duration (metrics, logs). */
  readonly onCall?: (
    provider: string,
    outcome: 'ok' | 'failed',
    ms: number,
    reason?: string,
  ) => void;
  /** Milliseconds, monotonic; injected. */
  readonly now: () => number;
}

/**
 * Resolves `external` asks: calls each provider once for the keys its asks need (batched, at most
 * maxKeysPerCall keys a call), shares a call already in flight for the same key with concurrent
 * admissions, and fills the answer cache the ExternalView reads. Asks of other types are ignored
 * (composite-view.ts routes them). Never rejects.
 */
export function createExternalResolver(options: ExternalResolverOptions): AskResolver {
  const inFlight = new Map<string, Promise<void>>();

  const callBatch = async (
    provider: ExternalDataProvider,
    keys: readonly string[],
    timeLeftMs: number,
  ): Promise<void> => {
    const started = options.now();
    const timeoutMs = callTimeoutMs(provider.timeoutMs, timeLeftMs);
    // A call the webhook's deadline cut short says nothing about the provider: not cached.
    const clipped = timeoutMs < Math.min(provider.timeoutMs, PROVIDER_LIMITS.maxTimeoutMs);
    const store = (key: string, answer: CachedAnswer): void => {
      const ttl = answer.kind === 'failed' ? provider.failureTTLSeconds : provider.cacheTTLSeconds;
      options.cache.set(provider.name, provider.resourceVersion, key, answer, ttl);
    };
    let answers: Map<string, KeyAnswer>;
    try {
      if (timeoutMs <= 0) return;
      const cert = await within(options.registry.clientCert(provider), timeoutMs);
      const left = timeoutMs - (options.now() - started);
      if (left <= 0) throw new Error(`no time left after reading the client certificate`);
      answers = await options.caller.call(provider, keys, cert, left);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      options.onCall?.(provider.name, 'failed', options.now() - started, message);
      if (clipped) return;
      const reason = `provider down: ${prefixed(provider.name, message)}`;
      for (const key of keys) store(key, { kind: 'failed', reason });
      return;
    }
    options.onCall?.(provider.name, 'ok', options.now() - started);
    for (const key of keys) store(key, cachedOf(provider.name, answers.get(key)));
  };

  return {
    async resolve(asks, timeLeftMs): Promise<void> {
      const byProvider = new Map<string, { provider: ExternalDataProvider; keys: Set<string> }>();
      for (const ask of asks) {
        if (ask.type !== 'external') continue;
        const found = providerForAsk(options, ask.asker, ask.provider, ask.key);
        if ('answer' in found) continue;
        const { provider } = found;
        if (options.cache.get(provider.name, provider.resourceVersion, ask.key) !== undefined)
          continue;
        const group = byProvider.get(provider.name) ?? { provider, keys: new Set<string>() };
        group.keys.add(ask.key);
        byProvider.set(provider.name, group);
      }
      const waits: Promise<void>[] = [];
      for (const { provider, keys } of byProvider.values()) {
        const fresh: string[] = [];
        for (const key of [...keys].sort()) {
          const shared = inFlight.get(flightKey(provider, key));
          if (shared === undefined) fresh.push(key);
          else waits.push(shared);
        }
        for (let i = 0; i < fresh.length; i += PROVIDER_LIMITS.maxKeysPerCall) {
          const batch = fresh.slice(i, i + PROVIDER_LIMITS.maxKeysPerCall);
          const call = callBatch(provider, batch, timeLeftMs).finally(() => {
            for (const key of batch)
              if (inFlight.get(flightKey(provider, key)) === call)
                inFlight.delete(flightKey(provider, key));
          });
          for (const key of batch) inFlight.set(flightKey(provider, key), call);
          waits.push(call);
        }
      }
      await Promise.all(waits);
    },
  };
}

function flightKey(provider: ExternalDataProvider, key: string): string {
  return `${provider.name}\u0000${provider.resourceVersion}\u0000${key}`;
}

function cachedOf(name: string, answer: KeyAnswer | undefined): CachedAnswer {
  if (answer === undefined || answer.kind === 'absent') return { kind: 'absent' };
  if (answer.kind === 'value') return { kind: 'value', value: answer.value };
  return {
    kind: 'failed',
    reason: `provider ${name} answered an error for the key: ${answer.message}`,
  };
}

function prefixed(name: string, message: string): string {
  return message.startsWith(`provider ${name}:`) ? message : `provider ${name}: ${message}`;
}

/** `promise`, or a rejection once `ms` have passed (the timer does not keep the process alive). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`client certificate not read within ${String(ms)} ms`));
    }, ms);
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => {
    clearTimeout(timer);
  });
}
