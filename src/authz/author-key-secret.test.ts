import { describe, expect, it } from 'vitest';
import { KubeApiError, type KubeClient, type KubeRequest } from '../kube/kube-client.js';
import type { JsonObject } from '../engine/json.js';
import { createSilentLogger } from '../observability/logger.js';
import { AUTHOR_KEY_SECRET, authorKeyOf, ensureAuthorKey } from './author-key-secret.js';

/** Secrets of one namespace as the API server keeps them: create-if-absent, 404 when missing. */
function secretsApi(initial: JsonObject[] = []): { client: KubeClient; calls: string[] } {
  const secrets = new Map<string, JsonObject>();
  for (const s of initial) secrets.set((s.metadata as { name: string }).name, s);
  const calls: string[] = [];
  const client: KubeClient = {
    async request(req: KubeRequest): Promise<JsonObject> {
      calls.push(`${req.method} ${req.path}`);
      // Every call yields first, so two replicas interleave as they would over the network.
      await new Promise((resolve) => setImmediate(resolve));
      if (req.method === 'GET') {
        const name = req.path.split('/').at(-1) ?? '';
        const found = secrets.get(name);
        if (found === undefined) throw new KubeApiError(404, `secrets "${name}" not found`);
        return structuredClone(found);
      }
      if (req.method === 'POST') {
        const body = req.body as JsonObject;
        const name = (body.metadata as { name: string }).name;
        if (secrets.has(name)) throw new KubeApiError(409, `secrets "${name}" already exists`);
        secrets.set(name, structuredClone(body));
        return body;
      }
      throw new Error(`unexpected ${req.method}`);
    },
    list: () => Promise.reject(new Error('not used')),
    watch: () => {
      throw new Error('not used');
    },
  };
  return { client, calls };
}

const options = (client: KubeClient, fill: number) => ({
  client,
  logger: createSilentLogger(),
  namespace: 'kubemod-system',
  secretName: AUTHOR_KEY_SECRET,
  random: (bytes: number) => Buffer.alloc(bytes, fill),
});

describe('ensureAuthorKey', () => {
  it('creates its own Secret with a fresh 32-byte key when there is none', async () => {
    const { client, calls } = secretsApi();
    const key = await ensureAuthorKey(options(client, 9));
    expect(Buffer.from(key)).toEqual(Buffer.alloc(32, 9));
    expect(calls).toEqual([
      'GET /api/v1/namespaces/kubemod-system/secrets/kubemod-author-key',
      'POST /api/v1/namespaces/kubemod-system/secrets',
    ]);
    // Read back as the next replica would.
    expect(Buffer.from(await ensureAuthorKey(options(client, 1)))).toEqual(Buffer.alloc(32, 9));
  });

  it('gives two replicas starting together the same key (create-or-get)', async () => {
    const { client, calls } = secretsApi();
    const [a, b] = await Promise.all([
      ensureAuthorKey(options(client, 1)),
      ensureAuthorKey(options(client, 2)),
    ]);
    expect(Buffer.from(a)).toEqual(Buffer.from(b));
    // Both found none and both tried to create it; the loser read the winner's.
    expect(calls.filter((c) => c.startsWith('POST'))).toHaveLength(2);
    expect(calls.filter((c) => c.startsWith('GET'))).toHaveLength(3);
  });

  it('refuses a Secret without a usable key rather than overwriting it', async () => {
    const short = {
      metadata: { name: AUTHOR_KEY_SECRET },
      data: { key: Buffer.alloc(8).toString('base64') },
    };
    const { client, calls } = secretsApi([short]);
    await expect(ensureAuthorKey(options(client, 1))).rejects.toThrow(
      /^Secret kubemod-system\/kubemod-author-key: data\.key: must hold a base64 key of at least 32 bytes/,
    );
    expect(calls.every((c) => c.startsWith('GET'))).toBe(true);
    expect(authorKeyOf({ metadata: {} })).toBeUndefined();
  });
});
