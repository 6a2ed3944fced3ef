import type { JsonValue } from '../engine/json.js';
import { KubemodError } from '../errors/catalog.js';
import { parseJsonBytes } from '../json-stream/incremental-json.js';
import { EXTERNAL_DATA_API_VERSION, PROVIDER_LIMITS } from './provider-types.js';

/**
 * The wire format between the operator and a provider (Gatekeeper-like; docs/lookups.md):
 *
 *   POST <url>   Content-Type: application/json
 *   {"apiVersion":"externaldata.kubemod.io/v1","keys":["k1","k2"]}
 *   200 OK
 *   {"items":[{"key":"k1","value":<any JSON>},{"key":"k2","error":"<text>"}]}
 *
 * A key the provider does not list is absent (the rule sees an empty map); an item with an
 * `error` is a failure of that key; a non-200 answer, or a body that is not this shape, fails
 * every key of the call.
 */

/** What a provider said about one key. */
export type KeyAnswer =
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'absent' };

/** Longest provider error message kept (it is shown in rule failures). */
const MAX_ERROR_TEXT = 256;

export function requestBody(keys: readonly string[]): string {
  return JSON.stringify({ apiVersion: EXTERNAL_DATA_API_VERSION, keys });
}

function callError(message: string): KubemodError {
  return new KubemodError('PROVIDER_CALL', message);
}

/**
 * Reads a provider's response body (already bounded to PROVIDER_LIMITS.maxResponseBytes) for the
 * keys asked: every asked key gets an answer; items for keys not asked are ignored. Throws a
 * PROVIDER_CALL error when the body is not JSON of the documented shape.
 */
export function readResponse(body: Uint8Array, keys: readonly string[]): Map<string, KeyAnswer> {
  let doc: JsonValue;
  try {
    doc = parseJsonBytes(body, PROVIDER_LIMITS.maxResponseDepth);
  } catch (err) {
    throw callError(`response is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw callError('response is not a JSON object');
  const items = doc.items;
  if (!Array.isArray(items)) throw callError('response has no "items" list');
  const asked = new Set(keys);
  const answers = new Map<string, KeyAnswer>();
  for (const [i, item] of items.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw callError(`items[${String(i)}] is not an object`);
    const key = item.key;
    if (typeof key !== 'string') throw callError(`items[${String(i)}].key is not a string`);
    if (!asked.has(key) || answers.has(key)) continue;
    const error = item.error;
    if (error !== undefined && error !== null && error !== '') {
      const text = typeof error === 'string' ? error : JSON.stringify(error);
      answers.set(key, { kind: 'error', message: printable(text) });
    } else if ('value' in item) {
      answers.set(key, { kind: 'value', value: item.value ?? null });
    } else {
      answers.set(key, { kind: 'absent' });
    }
  }
  for (const key of keys) if (!answers.has(key)) answers.set(key, { kind: 'absent' });
  return answers;
}

/** A provider's text made safe to put in a one-line message: control characters dropped, bounded. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return clean.length > MAX_ERROR_TEXT ? `${clean.slice(0, MAX_ERROR_TEXT)}…` : clean;
}
