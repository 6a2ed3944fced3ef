import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueCertificate } from '../tls/certificates.js';
import { callTimeoutMs, createProviderClient, type ProviderCaller } from './provider-client.js';
import {
  echoProvider,
  serverTls,
  startProviderServer,
  testProvider,
  type ServerTls,
  type TestProviderServer,
} from './provider-server.test-support.js';

// The provider client against a real HTTPS server on 127.0.0.1 (port 0), with certificates made
// as src/tls makes the webhook's.

let good: ServerTls;
let other: ServerTls;
let server: TestProviderServer;
let client: ProviderCaller;

beforeAll(async () => {
  good = serverTls('provider');
  other = serverTls('impostor');
  server = await startProviderServer(good, echoProvider);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  client.close();
  server.handle(echoProvider);
  server.seen.length = 0;
});
const newClient = (): ProviderCaller => (client = createProviderClient());

describe('provider client', () => {
  it('POSTs the keys as JSON and reads values, errors and absent keys', async () => {
    server.handle((_req, res) => {
      res.end(
        JSON.stringify({
          items: [
            { key: 'a', value: { tier: 'gold', n: 3 } },
            { key: 'b', error: 'unknown\nkey' },
            { key: 'not-asked', value: 'ignored' },
          ],
        }),
      );
    });
    const answers = await newClient().call(
      testProvider(server.url, good.ca.certPem),
      ['a', 'b', 'c'],
      undefined,
      1_000,
    );
    expect(Object.fromEntries(answers)).toEqual({
      a: { kind: 'value', value: { tier: 'gold', n: 3 } },
      b: { kind: 'error', message: 'unknown key' },
      c: { kind: 'absent' },
    });
    const [seen] = server.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body ?? '')).toEqual({
      apiVersion: 'externaldata.kubemod.io/v1',
      keys: ['a', 'b', 'c'],
    });
  });

  it('sends no Authorization header and no other credential', async () => {
    await newClient().call(testProvider(server.url, good.ca.certPem), ['k'], undefined, 1_000);
    const headers = server.seen[0]?.headers ?? {};
    expect(Object.keys(headers).sort()).toEqual([
      'accept',
      'connection',
      'content-length',
      'content-type',
      'host',
    ]);
    expect(headers.authorization).toBeUndefined();
    expect(server.seen[0]?.clientCn).toBeUndefined();
  });

  it('trusts only the caBundle: a server whose certificate another CA signed is refused', async () => {
    const impostor = await startProviderServer(other, echoProvider);
    try {
      await expect(
        newClient().call(testProvider(impostor.url, good.ca.certPem), ['k'], undefined, 1_000),
      ).rejects.toThrow(/provider test-provider: .*(self[- ]signed|unable to verify|certificate)/i);
      expect(impostor.seen).toEqual([]);
      // The same server is reached with its own CA: the refusal was the CA, nothing else.
      const ok = await client.call(
        testProvider(impostor.url, other.ca.certPem, { resourceVersion: '2' }),
        ['k'],
        undefined,
        1_000,
      );
      expect(ok.get('k')).toEqual({ kind: 'value', value: 'value-of-k' });
    } finally {
      await impostor.close();
    }
  });

  it.each([
    ['with a Content-Length', true],
    ['streamed without one', false],
  ])('aborts an answer over 64 KiB (%s)', async (_, declared) => {
    const big = JSON.stringify({ items: [{ key: 'k', value: 'x'.repeat(70 * 1024) }] });
    server.handle((_req, res) => {
      if (declared) res.setHeader('content-length', String(Buffer.byteLength(big)));
      res.write(big.slice(0, 40 * 1024));
      res.end(big.slice(40 * 1024));
    });
    await expect(
      newClient().call(testProvider(server.url, good.ca.certPem), ['k'], undefined, 1_000),
    ).rejects.toThrow(/over the 65536-byte limit/);
  });

  it('reads an answer of just under 64 KiB', async () => {
    const value = 'y'.repeat(64 * 1024 - 100);
    server.handle((_req, res) => {
      res.end(JSON.stringify({ items: [{ key: 'k', value }] }));
    });
    const answers = await newClient().call(
      testProvider(server.url, good.ca.certPem),
      ['k'],
      undefined,
      1_000,
    );
    expect(answers.get('k')).toEqual({ kind: 'value', value });
  });

  it('gives up after the timeout it is given when the provider does not answer', async () => {
    server.handle(() => undefined);
    const started = performance.now();
    await expect(
      newClient().call(testProvider(server.url, good.ca.certPem), ['k'], undefined, 80),
    ).rejects.toThrow('provider test-provider: no answer within 80 ms');
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(70);
    expect(took).toBeLessThan(900);
  });

  it('does not follow a redirect', async () => {
    server.handle((req, res) => {
      if (req.path === '/elsewhere') {
        echoProvider(req, res);
        return;
      }
      res.statusCode = 307;
      res.setHeader('location', `${server.url}elsewhere`);
      res.end();
    });
    await expect(
      newClient().call(testProvider(server.url, good.ca.certPem), ['k'], undefined, 1_000),
    ).rejects.toThrow(/answered 307 \(a redirect; redirects are not followed\)/);
    expect(server.seen.map((r) => r.path)).toEqual(['/']);
  });

  it.each([
    [500, 'oops', /answered HTTP 500/],
    [200, 'not json', /response is not JSON/],
    [200, '{"items":{}}', /no "items" list/],
    [200, '[1]', /not a JSON object/],
    [200, `{"items":${'['.repeat(40)}${']'.repeat(40)}}`, /response is not JSON/],
  ])('fails the call on HTTP %d %j', async (status, body, message) => {
    server.handle((_req, res) => {
      res.statusCode = status;
      res.end(body);
    });
    await expect(
      newClient().call(testProvider(server.url, good.ca.certPem), ['k'], undefined, 1_000),
    ).rejects.toThrow(message);
  });

  it('presents the client certificate of the provider', async () => {
    const clientCa = createCertificateAuthority({ commonName: 'clients' });
    const clientCert = issueCertificate(clientCa, {
      commonName: 'kubemod-operator',
      usages: ['client'],
    });
    const mtls = await startProviderServer(good, echoProvider, clientCa);
    try {
      const provider = testProvider(mtls.url, good.ca.certPem);
      await newClient().call(provider, ['k'], clientCert, 1_000);
      expect(mtls.seen[0]?.clientCn).toBe('kubemod-operator');
      // Without one configured, none is sent.
      await client.call({ ...provider, resourceVersion: '3' }, ['k'], undefined, 1_000);
      expect(mtls.seen[1]?.clientCn).toBeUndefined();
    } finally {
      await mtls.close();
    }
  });
});

describe('callTimeoutMs', () => {
  it.each([
    [500, 10_000, 500],
    [1_000, 10_000, 1_000],
    [5_000, 10_000, 1_000],
    [500, 120, 120],
    [500, 0, 0],
    [500, -5, 0],
    [500, 99.7, 99],
  ])('provider %d ms, %d ms left → %d ms', (provider, left, expected) => {
    expect(callTimeoutMs(provider, left)).toBe(expected);
  });
});
