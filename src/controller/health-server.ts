import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Metrics } from '../observability/metrics.js';

/**
 * How long a rendered /metrics page is served again, by default (the operator's
 * --metrics-cache-ms). Prometheus scrapes every 15 s to a minute; a page up to this old costs it
 * nothing, and a Pod that asks for /metrics in a loop costs one render per period.
 */
export const DEFAULT_METRICS_CACHE_MS = 5_000;

/**
 * `render` behind a cache: a page rendered less than `ttlMs` ago (by `now`, in ms) is served
 * again, and scrapes that arrive while a render runs share it. With `ttlMs` 0 every scrape that
 * does not overlap another renders anew. A failed render is not cached.
 */
export function cachedRender(
  render: () => Promise<string>,
  ttlMs: number,
  now: () => number,
): () => Promise<string> {
  let cached: { readonly text: string; readonly at: number } | undefined;
  let running: Promise<string> | undefined;
  return () => {
    if (cached !== undefined && now() - cached.at < ttlMs) return Promise.resolve(cached.text);
    if (running !== undefined) return running;
    const startedAt = now();
    const current = render().then((text) => {
      cached = { text, at: startedAt };
      return text;
    });
    running = current;
    const clear = (): void => {
      if (running === current) running = undefined;
    };
    current.then(clear, clear);
    return current;
  };
}

export interface HealthServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Plain-HTTP /healthz, /readyz and /metrics for kubelet probes and Prometheus: the only listener
 * that serves /metrics (the webhook port, open to any client of the Service, does not). A
 * rendered page is served again for `metricsCacheMs` (DEFAULT_METRICS_CACHE_MS), so scrapes in a
 * loop cost one render per period (config/optional/operator-network-policy.yaml also keeps other
 * Pods away from the port).
 */
export async function startHealthServer(options: {
  host: string;
  port: number;
  ready: () => boolean;
  metrics: Metrics;
  /** 0 renders every scrape (tests that scrape right after an action). */
  metricsCacheMs?: number | undefined;
  /** Milliseconds (the cache's clock); performance.now by default. */
  now?: (() => number) | undefined;
}): Promise<HealthServer> {
  const render = cachedRender(
    () => options.metrics.render(),
    options.metricsCacheMs ?? DEFAULT_METRICS_CACHE_MS,
    options.now ?? (() => performance.now()),
  );
  // Probes and scrapes are quick: a client that dawdles is cut off as on the webhook port.
  const server: Server = createServer(
    { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
        return;
      }
      if (path === '/healthz') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } else if (path === '/readyz') {
        const ready = options.ready();
        res
          .writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' })
          .end(ready ? 'ok' : 'not ready');
      } else if (path === '/metrics') {
        render().then(
          (text) => res.writeHead(200, { 'content-type': options.metrics.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      } else {
        res.writeHead(404).end();
      }
    },
  );
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    port,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
