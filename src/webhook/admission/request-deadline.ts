/**
 * When the webhook must have answered an admission request. The API server waits for a webhook
 * at most its configuration's `timeoutSeconds` (less when the request's own deadline is nearer)
 * and says so in the URL it calls, `?timeout=10s` (client-go writes the remaining time as a Go
 * duration, rounded up to whole seconds). After that it stops listening and applies the webhook's
 * failurePolicy: an answer that comes later is lost, whatever it says.
 */

/** Share of the API server's timeout the webhook may use; the rest is for the answer's way back. */
export const API_TIMEOUT_SHARE = 0.8;

const UNIT_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000_001,
};

const COMPONENT = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/gy;

/** Milliseconds of a Go duration (`10s`, `1m30s`, `1.5s`, `500ms`); undefined if it is not one. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '' || text.length > 32) return undefined;
  COMPONENT.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let match = COMPONENT.exec(text); match !== null; match = COMPONENT.exec(text)) {
    const [, amount = '', unit = ''] = match;
    total += Number(amount) * (UNIT_MS[unit] ?? Number.NaN);
    end = COMPONENT.lastIndex;
  }
  return end === text.length && Number.isFinite(total) ? total : undefined;
}

/** The API server's timeout from a request URL's `timeout` parameter; undefined without one. */
export function apiServerTimeoutMs(url: string | undefined): number | undefined {
  if (url === undefined) return undefined;
  const query = url.indexOf('?');
  if (query === -1) return undefined;
  const value = new URLSearchParams(url.slice(query + 1)).get('timeout');
  if (value === null) return undefined;
  const ms = parseGoDuration(value);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

/**
 * The request's deadline in ms from its arrival: the webhook's own (`limits.deadlineMs`), and at
 * most API_TIMEOUT_SHARE of the API server's timeout when the request says what it is.
 */
export function requestDeadlineMs(deadlineMs: number, apiTimeoutMs: number | undefined): number {
  if (apiTimeoutMs === undefined) return deadlineMs;
  return Math.min(deadlineMs, Math.floor(apiTimeoutMs * API_TIMEOUT_SHARE));
}
