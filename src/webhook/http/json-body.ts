import { KubemodError } from '../../errors/catalog.js';
import type { JsonValue } from '../../engine/json.js';
import { exceedsJsonDepth, jsonDepthAtMost, MAX_JSON_DEPTH } from '../../engine/json-depth.js';
import type { LoopSlicing } from '../loop-slicing.js';
import { parseJsonSliced } from '../../json-stream/incremental-json.js';

/**
 * Bodies up to this size are parsed at once by JSON.parse (about a millisecond); larger ones (up
 * to the 3 MiB limit, 15–50 ms in one block) by the sliced parser, which yields to the event loop
 * as it goes.
 */
export const SLICED_PARSE_BYTES = 128 * 1024;

/**
 * Parses the raw body read by rawBody (raw-body.ts) as JSON; throws REQUEST_MALFORMED with the
 * parser's reason, or when the body nests deeper than MAX_JSON_DEPTH (checked first: parsing slows
 * down sharply with depth).
 */
export function parseJsonBody(body: unknown): JsonValue {
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw new KubemodError('REQUEST_MALFORMED', 'request body is empty; expected JSON');
  }
  const text = body.toString('utf8');
  if (exceedsJsonDepth(text)) {
    throw new KubemodError(
      'REQUEST_MALFORMED',
      `request body nests deeper than ${String(MAX_JSON_DEPTH)} levels`,
    );
  }
  return parseText(text);
}

function parseText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubemodError('REQUEST_MALFORMED', `request body is not valid JSON: ${reason}`);
  }
}

/**
 * A body nesting deeper than this is parsed by the sliced parser whatever its size: V8's JSON.parse
 * slows down with depth (a Pod nested 9,000 deep, 53 KB, about 1.7 ms), while Kubernetes objects,
 * CRD schemas included, stay far shallower. At 2,000 levels JSON.parse costs about 0.25 ms more
 * than for a shallow body (Node 20 and 24), within what a shallow 128 KiB body costs itself (up to
 * about 2 ms). The check is cheap because of this size: a body with at most this many opening
 * brackets cannot nest deeper, and counting them is native (jsonDepthAtMost), where the full depth
 * scan costs a quarter of the parse (a 10 KB Deployment has 193 brackets, a 100 KB one 1,657; the
 * limit was 100 levels before issue 38's seventh round).
 */
export const SLICED_PARSE_DEPTH = 2_000;

/**
 * parseJsonBody for a body of any size: a large or deeply nested one is parsed in slices
 * (parseJsonSliced), so that it does not hold the event loop; same value, same errors
 * (REQUEST_MALFORMED).
 */
export async function parseJsonBodySliced(body: unknown, slicing: LoopSlicing): Promise<JsonValue> {
  if (!Buffer.isBuffer(body) || body.length === 0) return parseJsonBody(body);
  if (body.length <= SLICED_PARSE_BYTES) {
    const text = body.toString('utf8');
    if (jsonDepthAtMost(text, SLICED_PARSE_DEPTH)) return parseText(text);
  }
  return parseJsonSliced(body, { maxDepth: MAX_JSON_DEPTH, ...slicing });
}
