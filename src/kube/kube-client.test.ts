import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { createCertificateAuthority, issueCertificate } from '../tls/certificates.js';
import { createKubeClient, KubeApiError, type KubeClient } from './kube-client.js';

// createKubeClient against a real HTTPS server on loopback: what the API server's answers look
// like on the wire (status codes, Status bodies, a list arriving in pieces) is what is tested.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let client: KubeClient;
let handler: Handler = (_req, res) => res.end();
const seenHeaders: IncomingMessage['headers'][] = [];

beforeAll(async () => {
  const ca = createCertificateAuthority({ commonName: 'kube-client-test-ca' });
  const leaf = issueCertificate(ca, {
    commonName: 'localhost',
    ipAddresses: ['127.0.0.1'],
    usages: ['server'],
  });
  server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    seenHeaders.push(req.headers);
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  client = createKubeClient({
    server: new URL(`https://127.0.0.1:${String(port)}`),
    authorize: (opts) => {
      opts.ca = ca.certPem;
      opts.headers = { ...(opts.headers as object), authorization: 'Bearer t0k3n' };
      return Promise.resolve();
    },
  });
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function rejection(promise: Promise<unknown>): Promise<KubeApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof KubeApiError))
    throw new Error(`expected a KubeApiError, got ${String(err)}`);
  return err;
}

describe('createKubeClient', () => {
  it('sends the credentials and parses the answer; a Status answer becomes a KubeApiError', async () => {
    handler = (req, res) => {
      if (req.url === '/api/v1/namespaces/a/pods/p?dryRun=All')
        json(res, 200, { kind: 'Pod', metadata: { name: 'p' } });
      else json(res, 404, { kind: 'Status', code: 404, message: 'pods "q" not found' });
    };
    expect(
      await client.request({
        method: 'GET',
        path: '/api/v1/namespaces/a/pods/p',
        query: { dryRun: 'All' },
      }),
    ).toEqual({ kind: 'Pod', metadata: { name: 'p' } });
    expect(seenHeaders.at(-1)?.authorization).toBe('Bearer t0k3n');
    const err = await rejection(
      client.request({ method: 'GET', path: '/api/v1/namespaces/a/pods/q' }),
    );
    expect(err.statusCode).toBe(404);
    expect(err.message).toBe('GET /api/v1/namespaces/a/pods/q: pods "q" not found');
  });

  it('drains an answer the caller discards, but still reports a failure', async () => {
    handler = (req, res) => {
      if (req.url?.endsWith('/gone') === true) json(res, 409, { message: 'conflict' });
      else json(res, 200, { kind: 'ModRule', spec: { big: 'x'.repeat(100_000) } });
    };
    const patch = { method: 'PATCH' as const, body: {}, discardResponse: true };
    expect(await client.request({ ...patch, path: '/r/status' })).toEqual({});
    expect((await rejection(client.request({ ...patch, path: '/r/gone' }))).statusCode).toBe(409);
    // The connection is reusable afterwards.
    expect(await client.request({ ...patch, path: '/r/status' })).toEqual({});
  });

  it('hands list items over while the body is still arriving', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"ModRuleList","apiVersion":"api.kubemod.io/v1beta1",');
      res.write('"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},');
      void released.then(() => {
        res.end('{"metadata":{"name":"b","note":"]}\\""}}]}');
      });
    };
    const names: string[] = [];
    const heads: JsonObject[] = [];
    const listed = client.list('/apis/api.kubemod.io/v1beta1/modrules', { x: 1 }, (item, head) => {
      names.push((item.metadata as { name: string }).name);
      heads.push(head);
      if (names.length === 1) release();
    });
    expect(await listed).toEqual({
      kind: 'ModRuleList',
      apiVersion: 'api.kubemod.io/v1beta1',
      metadata: { resourceVersion: '9' },
      items: [],
    });
    // "b" was only sent after "a" had been handed over.
    expect(names).toEqual(['a', 'b']);
    expect(heads[0]?.kind).toBe('ModRuleList');
  });

  it('reports a failed or malformed list as a KubeApiError', async () => {
    handler = (_req, res) => {
      json(res, 403, { message: 'modrules is forbidden' });
    };
    const noop = (): void => undefined;
    const forbidden = await rejection(client.list('/apis/x/v1/modrules', {}, noop));
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.message).toMatch(/modrules is forbidden/);
    handler = (_req, res) => {
      res.end('{"kind":"List","items":[{"a":1},{"b":');
    };
    const truncated = await rejection(client.list('/apis/x/v1/modrules', {}, noop));
    expect(truncated.statusCode).toBe(0);
    expect(truncated.message).toMatch(/ended in the middle of a value/);
  });
});
