import { randomBytes } from 'node:crypto';
import type { KubeClient } from '../kube/kube-client.js';
import { isStatus } from '../kube/kube-client.js';
import { isJsonObject, type JsonObject } from '../engine/json.js';
import { KubemodError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import { AUTHOR_KEY_BYTES } from './author-signature.js';

/** The Secret (in the operator's namespace) holding the key that signs author records. */
export const AUTHOR_KEY_SECRET = 'kubemod-author-key';

/** The field of the Secret's data holding the key. */
export const AUTHOR_KEY_FIELD = 'key';

export interface AuthorKeyOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly namespace: string;
  readonly secretName: string;
  /** Fresh key bytes (crypto.randomBytes in production; injected for tests). */
  readonly random?: (bytes: number) => Uint8Array;
}

/** The key a Secret holds; undefined when it holds none of at least AUTHOR_KEY_BYTES bytes. */
export function authorKeyOf(secret: JsonObject): Uint8Array | undefined {
  const data = secret.data;
  const value = isJsonObject(data) ? data[AUTHOR_KEY_FIELD] : undefined;
  if (typeof value !== 'string') return undefined;
  const key = Buffer.from(value, 'base64');
  return key.length >= AUTHOR_KEY_BYTES ? key : undefined;
}

/**
 * The key that signs author records: the Secret's when it exists, otherwise a new random one
 * created with create-if-absent semantics, so that every replica ends with the same key (on 409
 * another replica won the race: read its Secret). A Secret that exists without a usable key is
 * an error naming it and its field, never overwritten: replacing a key makes every recorded
 * author unknown, which an admin does deliberately (delete the Secret, restart every replica).
 */
export async function ensureAuthorKey(options: AuthorKeyOptions): Promise<Uint8Array> {
  const { client, namespace, secretName } = options;
  const path = `/api/v1/namespaces/${namespace}/secrets`;
  const where = `Secret ${namespace}/${secretName}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    let secret: JsonObject | undefined;
    try {
      secret = await client.request({ method: 'GET', path: `${path}/${secretName}` });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
    if (secret !== undefined) {
      const key = authorKeyOf(secret);
      if (key === undefined)
        throw new KubemodError(
          'CLUSTER',
          `${where}: data.${AUTHOR_KEY_FIELD}: must hold a base64 key of at least ${String(AUTHOR_KEY_BYTES)} bytes (delete the Secret to have the operator generate one; every recorded author then reads as unknown until rewritten)`,
        );
      return key;
    }
    const key = (options.random ?? randomBytes)(AUTHOR_KEY_BYTES);
    try {
      await client.request({
        method: 'POST',
        path,
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          type: 'Opaque',
          metadata: {
            name: secretName,
            namespace,
            labels: { 'app.kubernetes.io/managed-by': 'kubemod-ts' },
          },
          data: { [AUTHOR_KEY_FIELD]: Buffer.from(key).toString('base64') },
        },
      });
      options.logger.info({ secret: secretName }, 'created the author signing key');
      return key;
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
      // Another replica created it first: read theirs.
    }
  }
  throw new KubemodError('CLUSTER', `could not create or read ${where}`);
}
