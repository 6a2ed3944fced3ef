import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiServerTimeoutMs, parseGoDuration, requestDeadlineMs } from './request-deadline.js';

describe('the deadline of an admission request', () => {
  it.each([
    ['10s', 10_000],
    ['1m0s', 60_000],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['500ms', 500],
    ['1h0m0s', 3_600_000],
    ['', undefined],
    ['10', undefined],
    ['s', undefined],
    ['10x', undefined],
    ['-1s', undefined],
    ['10s ', undefined],
  ])('reads the Go duration %j', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it('reads every duration client-go writes for whole seconds (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 86_399 }), (seconds) => {
        const h = Math.floor(seconds / 3600);
        const m = Math.floor((seconds % 3600) / 60);
        const s = seconds % 60;
        // Go's Duration.String: "45s", "1m0s", "2h3m4s".
        const text =
          h > 0
            ? `${String(h)}h${String(m)}m${String(s)}s`
            : m > 0
              ? `${String(m)}m${String(s)}s`
              : `${String(s)}s`;
        expect(parseGoDuration(text)).toBe(seconds * 1000);
      }),
    );
  });

  it.each([
    ['/dragnet-webhook?timeout=10s', 10_000],
    ['/dragnet-webhook?x=1&timeout=5s', 5000],
    ['/dragnet-webhook', undefined],
    ['/dragnet-webhook?timeout=0s', undefined],
    ['/dragnet-webhook?timeout=soon', undefined],
    [undefined, undefined],
  ])('finds the API server timeout in %j', (url, ms) => {
    expect(apiServerTimeoutMs(url)).toBe(ms);
  });

  it.each([
    [8000, undefined, 8000],
    [8000, 10_000, 8000],
    [8000, 5000, 4000],
    [8000, 30_000, 8000],
  ])('deadline %d with an API timeout of %j is %d', (limit, api, deadline) => {
    expect(requestDeadlineMs(limit, api)).toBe(deadline);
  });
});
