// @ts-check
// The playground's state in the URL fragment: `#v1.` + base64url(deflate(JSON)). The fragment is
// never sent to a server. Members added later (the context editors, the cluster objects) are
// optional and '' when absent, so every link made before them still opens as it was. Both directions are bounded: a state whose link would be too long is
// not put in the URL, and a link is refused before and while it is inflated, so a crafted link
// cannot make the page inflate megabytes.

/**
 * @typedef {object} PlaygroundState
 * @property {string} rules ModRules, YAML
 * @property {string} resource the resource, YAML
 * @property {string} namespace request namespace ('' for the resource's)
 * @property {'CREATE' | 'UPDATE' | 'DELETE'} operation
 * @property {string} namespaceManifest the Namespace manifest for syntheticRefs, YAML ('' for none)
 * @property {string} nodeManifest the Node manifest for syntheticRefs, YAML ('' for none)
 * @property {string} old the object before an UPDATE or the one a DELETE removes ('' for none)
 * @property {string} cluster the objects and ExternalDataAnswers lookups read, YAML documents
 *   (the dry run's `cluster` member; '' for none)
 */

/** @typedef {{ ok: true, state: PlaygroundState } | { ok: false, reason: string }} DecodeResult */

export const FRAGMENT_PREFIX = 'v1.';
/** Longest fragment written or read (browsers and chat tools keep links far longer). */
export const MAX_FRAGMENT_CHARS = 64 * 1024;
/** Largest state, as JSON text, written or read. */
export const MAX_STATE_CHARS = 512 * 1024;

/** @type {readonly string[]} */
export const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE'];

/**
 * The fragment (without `#`) for a state, or undefined when it would be longer than
 * MAX_FRAGMENT_CHARS.
 * @param {PlaygroundState} state
 * @returns {Promise<string | undefined>}
 */
export async function encodeState(state) {
  const encoded = await encodeStateSized(state);
  return encoded.ok ? encoded.fragment : undefined;
}

/**
 * The fragment for a state, or why there is none: how long it would be against the limit.
 * @param {PlaygroundState} state
 * @returns {Promise<{ ok: true, fragment: string } | { ok: false, length: number, limit: number, what: 'text' | 'link' }>}
 */
export async function encodeStateSized(state) {
  const json = JSON.stringify({
    r: state.rules,
    o: state.resource,
    n: state.namespace,
    p: state.operation,
    ...(state.namespaceManifest === '' ? {} : { s: state.namespaceManifest }),
    ...(state.nodeManifest === '' ? {} : { d: state.nodeManifest }),
    ...(state.old === '' ? {} : { u: state.old }),
    ...(state.cluster === '' ? {} : { c: state.cluster }),
  });
  if (json.length > MAX_STATE_CHARS) {
    return { ok: false, length: json.length, limit: MAX_STATE_CHARS, what: 'text' };
  }
  const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('deflate'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const fragment = FRAGMENT_PREFIX + toBase64Url(bytes);
  return fragment.length > MAX_FRAGMENT_CHARS
    ? { ok: false, length: fragment.length, limit: MAX_FRAGMENT_CHARS, what: 'link' }
    : { ok: true, fragment };
}

/**
 * Whether a fragment (without `#`) is one this playground made: only those are read as a state;
 * any other (`#results`, an anchor) is an ordinary in-page link and leaves the editors alone.
 * @param {string} fragment
 * @returns {boolean}
 */
export function isShareFragment(fragment) {
  return fragment.startsWith(FRAGMENT_PREFIX);
}

/**
 * The state a fragment (without `#`) holds, or why it cannot be read.
 * @param {string} fragment
 * @returns {Promise<DecodeResult>}
 */
export async function decodeState(fragment) {
  if (!fragment.startsWith(FRAGMENT_PREFIX)) {
    return { ok: false, reason: 'the link was not made by this playground' };
  }
  if (fragment.length > MAX_FRAGMENT_CHARS) {
    return {
      ok: false,
      reason: `the link is longer than ${String(MAX_FRAGMENT_CHARS)} characters`,
    };
  }
  const bytes = fromBase64Url(fragment.slice(FRAGMENT_PREFIX.length));
  if (bytes === undefined) return { ok: false, reason: 'the link is damaged (not base64url)' };
  let json;
  try {
    json = await inflateBounded(bytes, MAX_STATE_CHARS);
  } catch {
    return { ok: false, reason: 'the link is damaged (cannot be decompressed)' };
  }
  if (json === undefined) {
    return { ok: false, reason: `the link holds more than ${String(MAX_STATE_CHARS)} characters` };
  }
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'the link is damaged (not JSON)' };
  }
  return readState(value);
}

/**
 * @param {unknown} value
 * @returns {DecodeResult}
 */
function readState(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'the link does not hold a playground state' };
  }
  const record = /** @type {Record<string, unknown>} */ (value);
  const { r: rules, o: resource, n: namespace, p: operation } = record;
  if (typeof rules !== 'string' || typeof resource !== 'string' || typeof namespace !== 'string') {
    return { ok: false, reason: 'the link does not hold a playground state' };
  }
  if (typeof operation !== 'string' || !OPERATIONS.includes(operation)) {
    return { ok: false, reason: 'the link names an unknown operation' };
  }
  // Members added after the first links were made: optional, '' when absent.
  const { s: namespaceManifest = '', d: nodeManifest = '', u: old = '', c: cluster = '' } = record;
  if (
    typeof namespaceManifest !== 'string' ||
    typeof nodeManifest !== 'string' ||
    typeof old !== 'string' ||
    typeof cluster !== 'string'
  ) {
    return { ok: false, reason: 'the link does not hold a playground state' };
  }
  return {
    ok: true,
    state: {
      rules,
      resource,
      namespace,
      operation: /** @type {PlaygroundState['operation']} */ (operation),
      namespaceManifest,
      nodeManifest,
      old,
      cluster,
    },
  };
}

/**
 * Inflates `bytes`, giving up (undefined) as soon as the text passes `maxChars`.
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @param {number} maxChars
 * @returns {Promise<string | undefined>}
 */
async function inflateBounded(bytes, maxChars) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length > maxChars) {
      await reader.cancel();
      return undefined;
    }
  }
  text += decoder.decode();
  return text.length > maxChars ? undefined : text;
}

/**
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function toBase64Url(bytes) {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer> | undefined}
 */
function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const base64 = text.replaceAll('-', '+').replaceAll('_', '/');
  let binary;
  try {
    binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
