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
