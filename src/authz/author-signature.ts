import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The annotation holding the MAC of a ModRule's author record (api.kubemod.io/author), written
 * by the ModRule mutating webhook next to the record. It binds the record to the rule's
 * namespace and name, so a record copied from another rule does not verify either.
 */
export const AUTHOR_MAC_ANNOTATION = 'api.kubemod.io/author-mac';

/** Bytes of a signing key (HMAC-SHA256 takes any length; 32 is its block-safe strength). */
export const AUTHOR_KEY_BYTES = 32;

/** The version prefix of a MAC: a later scheme (or key id) can be told apart from this one. */
const SCHEME = 'v1:';

/** Signs and checks author records with one key (the operator's, from its own Secret). */
export interface AuthorSigner {
  /** The MAC annotation value for `record` (canonical author JSON) on rule `namespace/name`. */
  sign(namespace: string, name: string, record: string): string;
  /** Whether `mac` is the MAC of `record` on `namespace/name` under this key (constant-time). */
  verify(namespace: string, name: string, record: string, mac: string): boolean;
}

/**
 * The signed message: namespace, name and record as a JSON array, so no choice of the three
 * strings can read as another choice (a name ending in a separator, say).
 */
function digest(key: Uint8Array, namespace: string, name: string, record: string): Buffer {
  return createHmac('sha256', key)
    .update(JSON.stringify(['kubemod-author', namespace, name, record]))
    .digest();
}

/**
 * HMAC-SHA256 over a rule's namespace, name and canonical author record. Pure apart from the key
 * it closes over: the same key, rule and record always give the same MAC.
 */
export function authorSigner(key: Uint8Array): AuthorSigner {
  if (key.length < AUTHOR_KEY_BYTES)
    throw new RangeError(
      `the author signing key has ${String(key.length)} bytes; at least ${String(AUTHOR_KEY_BYTES)} are needed`,
    );
  const copy = Buffer.from(key);
  return {
    sign(namespace, name, record): string {
      return SCHEME + digest(copy, namespace, name, record).toString('base64url');
    },
    verify(namespace, name, record, mac): boolean {
      if (!mac.startsWith(SCHEME)) return false;
      const given = Buffer.from(mac.slice(SCHEME.length), 'base64url');
      const expected = digest(copy, namespace, name, record);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
