import type { JsonValue } from '../engine/json.js';
import { createJsonSliceParser, DEFAULT_TUNING } from './json-slice-parser.js';

/** How parseJsonSliced shares the event loop. */
export interface SlicedParseOptions {
  /** Refuse deeper nesting of arrays and objects (callers pass MAX_JSON_DEPTH). */
  readonly maxDepth: number;
  /** Work about this long, then yield. */
  readonly sliceMs: number;
  /** Milliseconds, injected (performance.now in production). */
  readonly clock: () => number;
  /** Lets the event loop run, injected (setImmediate-based in production). */
  readonly yieldToLoop: () => Promise<void>;
  /** Bytes parsed between two readings of the clock (default 2,048); tests set 1 to yield often. */
  readonly checkIntervalBytes?: number;
}

/**
 * Parses UTF-8 JSON bytes exactly as JSON.parse(bytes.toString('utf8')) would, in slices: it works
 * until `clock()` passes `sliceMs` after the slice started, then awaits `yieldToLoop()` and goes on.
 * Throws REQUEST_MALFORMED for a syntax error (with its byte offset) or, as soon as it is passed,
 * for nesting deeper than `maxDepth`.
 */
export async function parseJsonSliced(
  bytes: Uint8Array,
  options: SlicedParseOptions,
): Promise<JsonValue> {
  const parser = createJsonSliceParser(bytes, options.maxDepth, {
    checkIntervalBytes: options.checkIntervalBytes ?? DEFAULT_TUNING.checkIntervalBytes,
    stringChunkBytes: DEFAULT_TUNING.stringChunkBytes,
  });
  for (;;) {
    const deadline = options.clock() + options.sliceMs;
    if (parser.step(deadline, options.clock)) return parser.result();
    await options.yieldToLoop();
  }
}

/** The same parser run to completion synchronously (for tests and for the CLI). */
export function parseJsonBytes(bytes: Uint8Array, maxDepth: number): JsonValue {
  const parser = createJsonSliceParser(bytes, maxDepth);
  parser.step(Number.POSITIVE_INFINITY, () => 0);
  return parser.result();
}
