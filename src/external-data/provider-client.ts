import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { KubemodError } from '../errors/catalog.js';
import { readResponse, requestBody, type KeyAnswer } from './provider-protocol.js';
import {
  PROVIDER_LIMITS,
  type ClientCertificate,
  type ExternalDataProvider,
} from './provider-types.js';

/** Calls a provider for some keys; every asked key gets an answer, or the promise rejects. */
export interface ProviderCaller {
  call(
    provider: ExternalDataProvider,
    keys: readonly string[],
    clientCert: ClientCertificate | undefined,
    timeoutMs: number,
  ): Promise<Map<string, KeyAnswer>>;
  /** Closes pooled connections. */
  close(): void;
}

function callError(provider: ExternalDataProvider, message: string): KubemodError {
  return new KubemodError('PROVIDER_CALL', `provider ${provider.name}: ${message}`);
}

/**
 * The HTTPS client of providers. What it never does, by construction: trust a root other than the
 * provider's caBundle (`ca` replaces Node's default roots), send a credential other than the
 * provider's own client certificate (no Authorization header, no token), follow a redirect (a
 * 3xx is a failure), read more than 64 KiB of answer (the socket is destroyed past it), or wait
 * longer than `timeoutMs` in all (connect, TLS, request and response together).
 */
export function createProviderClient(): ProviderCaller {
  // One keep-alive pool per provider version and client certificate: a changed provider (new CA,
  // new URL, rotated certificate) never reuses a connection made for the old one.
  const agents = new Map<string, { readonly id: string; readonly agent: Agent }>();
  const agentFor = (p: ExternalDataProvider, cert: ClientCertificate | undefined): Agent => {
    const id = `${p.resourceVersion}\u0000${p.url}\u0000${p.caPem}\u0000${cert?.certPem ?? ''}`;
    const existing = agents.get(p.name);
    if (existing?.id === id) return existing.agent;
    existing?.agent.destroy();
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 8,
      maxFreeSockets: 2,
      ca: p.caPem,
      ...(cert === undefined ? {} : { cert: cert.certPem, key: cert.keyPem }),
    });
    agents.set(p.name, { id, agent });
    return agent;
  };

  return {
    call(provider, keys, clientCert, timeoutMs) {
      const body = Buffer.from(requestBody(keys), 'utf8');
      const url = new URL(provider.url);
      if (url.protocol !== 'https:') return Promise.reject(callError(provider, 'url is not https'));
      return new Promise<Map<string, KeyAnswer>>((resolve, reject) => {
        let settled = false;
        const fail = (message: string): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          reject(callError(provider, message));
        };
        const req = request(url, {
          method: 'POST',
          agent: agentFor(provider, clientCert),
          ca: provider.caPem,
          ...(clientCert === undefined ? {} : { cert: clientCert.certPem, key: clientCert.keyPem }),
          rejectUnauthorized: true,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'content-length': String(body.length),
          },
        });
        const timer = setTimeout(() => {
          fail(`no answer within ${String(timeoutMs)} ms`);
        }, timeoutMs);
        req.on('error', (err) => {
          fail(err.message);
        });
        req.on('response', (res) => {
          readBounded(res, fail, (bytes) => {
            if (settled) return;
            try {
              const answers = readResponse(bytes, keys);
              settled = true;
              clearTimeout(timer);
              resolve(answers);
            } catch (err) {
              fail(err instanceof Error ? err.message : String(err));
            }
          });
        });
        req.end(body);
      });
    },
    close() {
      for (const { agent } of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}

/** Reads a 200 answer of at most maxResponseBytes; anything else fails the call. */
function readBounded(
  res: IncomingMessage,
  fail: (message: string) => void,
  done: (bytes: Buffer) => void,
): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    res.resume();
    fail(`answered ${String(status)} (a redirect; redirects are not followed)`);
    return;
  }
  if (status !== 200) {
    res.resume();
    fail(`answered HTTP ${String(status)}`);
    return;
  }
  const limit = PROVIDER_LIMITS.maxResponseBytes;
  const declared = Number(res.headers['content-length'] ?? '0');
  if (declared > limit) {
    fail(`answer of ${String(declared)} bytes is over the ${String(limit)}-byte limit`);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      fail(`answer is over the ${String(limit)}-byte limit`);
      return;
    }
    chunks.push(chunk);
  });
  res.on('error', (err) => {
    fail(err.message);
  });
  res.on('end', () => {
    if (size <= limit) done(Buffer.concat(chunks));
  });
}

/**
 * How long one call may take: the provider's timeout, never more than 1 s, and never beyond the
 * time left before the webhook's deadline.
 */
export function callTimeoutMs(providerTimeoutMs: number, timeLeftMs: number): number {
  return Math.max(
    0,
    Math.floor(Math.min(providerTimeoutMs, PROVIDER_LIMITS.maxTimeoutMs, timeLeftMs)),
  );
}
