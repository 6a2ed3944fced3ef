import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';
import { AUTHOR_MAC_ANNOTATION, type AuthorSigner } from './author-signature.js';

/**
 * The annotation the ModRule mutating webhook writes on every created or updated ModRule: the
 * identity of the request's user, as canonical JSON. It lives under KubeMod's own
 * `api.kubemod.io/` prefix next to the apply-to-existing opt-in it authorizes, and in an
 * annotation because every write of a ModRule's metadata passes the webhook (which overwrites
 * it), while writes of the status subresource cannot change annotations at all.
 */
export const AUTHOR_ANNOTATION = 'api.kubemod.io/author';

/** Canonical JSON of a recorded author is at most this long; a larger identity is not recorded. */
export const MAX_AUTHOR_CHARS = 16 * 1024;

/** An authenticated user as the API server describes it (AdmissionRequest.userInfo). */
export interface UserInfo {
  readonly username: string;
  readonly uid: string | undefined;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** What a ModRule says about its author. */
export type AuthorRecord =
  | { readonly known: true; readonly user: UserInfo; readonly key: string }
  | { readonly known: false; readonly reason: string };

function strings(value: JsonValue | undefined, budget: { left: number }): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') return undefined;
    budget.left -= item.length + 3;
    if (budget.left < 0) return undefined;
    out.push(item);
  }
  return out;
}

/**
 * Reads a userInfo object (of an AdmissionRequest, or of a recorded author). Undefined when it
 * is not one; 'too-large' when its canonical form would exceed MAX_AUTHOR_CHARS (counted while
 * reading, so an oversized value is never copied whole).
 */
export function readUserInfo(value: JsonValue | undefined): UserInfo | 'too-large' | undefined {
  if (!isJsonObject(value) || typeof value.username !== 'string' || value.username === '')
    return undefined;
  const budget = { left: MAX_AUTHOR_CHARS - value.username.length - 64 };
  const uid = typeof value.uid === 'string' && value.uid !== '' ? value.uid : undefined;
  budget.left -= uid?.length ?? 0;
  const groups = strings(value.groups, budget);
  if (budget.left < 0) return 'too-large';
  if (groups === undefined) return undefined;
  const extra: Record<string, readonly string[]> = {};
  if (value.extra !== undefined && value.extra !== null) {
    if (!isJsonObject(value.extra)) return undefined;
    for (const [key, values] of Object.entries(value.extra)) {
      budget.left -= key.length + 6;
      const list = strings(values, budget);
      if (budget.left < 0) return 'too-large';
      if (list === undefined) return undefined;
      Object.defineProperty(extra, key, { value: list, enumerable: true, writable: false });
    }
  }
  return { username: value.username, uid, groups, extra };
}

/**
 * The recorded form: JSON with the fields in a fixed order and `extra` sorted by key, so that
 * the same identity always gives the same text (the validating webhook compares texts).
 * Undefined when it would exceed MAX_AUTHOR_CHARS.
 */
export function canonicalAuthor(user: UserInfo): string | undefined {
  const extra: JsonObject = {};
  for (const key of Object.keys(user.extra).sort()) {
    Object.defineProperty(extra, key, {
      value: [...(user.extra[key] ?? [])],
      enumerable: true,
      writable: true,
    });
  }
  const text = JSON.stringify({
    username: user.username,
    ...(user.uid === undefined ? {} : { uid: user.uid }),
    groups: [...user.groups],
    extra,
  });
  return text.length > MAX_AUTHOR_CHARS ? undefined : text;
}

/**
 * The `extra` keys that describe one credential rather than its holder, left out of the record:
 * the API server's `authentication.kubernetes.io/` keys (credential-id: a token's JTI or a
 * certificate's fingerprint; pod-name, pod-uid, node-name, node-uid: what a bound ServiceAccount
 * token was issued for). Each new token would otherwise make a new author (and a new access
 * review for every question asked about it), and everyone who may read the rule could read them.
 * RBAC never looks at `extra`. Every other key is kept: an authorizer may use extras to narrow
 * what a user may do (token scopes, say), and dropping one could only widen the author's rights.
 */
export const PER_CREDENTIAL_EXTRA_PREFIX = 'authentication.kubernetes.io/';

/** The identity as recorded: the user without its per-credential extras. */
export function recordableUser(user: UserInfo): UserInfo {
  const extra: Record<string, readonly string[]> = {};
  for (const [key, values] of Object.entries(user.extra)) {
    if (key.startsWith(PER_CREDENTIAL_EXTRA_PREFIX)) continue;
    Object.defineProperty(extra, key, { value: values, enumerable: true, writable: false });
  }
  return { ...user, extra };
}

function annotationOf(ruleObject: JsonObject, key: string): string | undefined {
  const metadata = ruleObject.metadata;
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return undefined;
  const value = metadata.annotations[key];
  return typeof value === 'string' ? value : undefined;
}

/** The author annotation of a ModRule manifest, if any. */
export function authorAnnotationOf(ruleObject: JsonObject): string | undefined {
  return annotationOf(ruleObject, AUTHOR_ANNOTATION);
}

/** The MAC annotation of the author record of a ModRule manifest, if any. */
export function authorMacOf(ruleObject: JsonObject): string | undefined {
  return annotationOf(ruleObject, AUTHOR_MAC_ANNOTATION);
}

export const UNKNOWN_AUTHOR_HINT =
  'its author is recorded again when someone changes its spec or one of its annotations api.kubemod.io/apply-to-existing, enforcement or failure-policy (or deletes and re-creates it)';

function identityOf(ruleObject: JsonObject): { namespace: string; name: string } {
  const metadata = isJsonObject(ruleObject.metadata) ? ruleObject.metadata : {};
  return {
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
  };
}

/**
 * Reads the author a ModRule manifest records, trusting it only when its MAC verifies with the
 * operator's key (`signer`; undefined when there is none); "unknown" with the reason otherwise.
 */
export function authorOf(ruleObject: JsonObject, signer: AuthorSigner | undefined): AuthorRecord {
  const text = authorAnnotationOf(ruleObject);
  if (text === undefined)
    return {
      known: false,
      reason: `no author is recorded on the rule (annotation ${AUTHOR_ANNOTATION}: it was written before kubemod-ts recorded authors, or its author's identity was too large to record); ${UNKNOWN_AUTHOR_HINT}`,
    };
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch {
    parsed = null;
  }
  const user = readUserInfo(parsed);
  const key = typeof user === 'object' ? canonicalAuthor(user) : undefined;
  if (typeof user !== 'object' || key === undefined)
    return {
      known: false,
      reason: `the author record (annotation ${AUTHOR_ANNOTATION}) cannot be read; ${UNKNOWN_AUTHOR_HINT}`,
    };
  const mac = authorMacOf(ruleObject);
  if (mac === undefined)
    return {
      known: false,
      reason: `the author record is not signed (no annotation ${AUTHOR_MAC_ANNOTATION}: it was written before kubemod-ts signed records, by a rule created with generateName, or not by the webhook); ${UNKNOWN_AUTHOR_HINT}`,
    };
  if (signer === undefined)
    return { known: false, reason: 'the operator has no key to check author records with' };
  const { namespace, name } = identityOf(ruleObject);
  if (!signer.verify(namespace, name, key, mac))
    return {
      known: false,
      reason: `the signature of the author record (annotation ${AUTHOR_MAC_ANNOTATION}) does not match: the record was changed, copied from another rule, or signed with another key; ${UNKNOWN_AUTHOR_HINT}`,
    };
  return { known: true, user, key };
}
