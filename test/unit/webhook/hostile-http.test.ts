import { connect as tcpConnect, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { loadAll } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { DEFAULT_WEBHOOK_LIMITS } from '../../../src/webhook/server.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  send,
  startHarness,
  SEEN_LABEL_RULE,
  storeOf,
  testTls,
  tlsSocket,
  type Harness,
  type HttpAnswer,
} from './harness.js';

// Issue #12 at the HTTP layer: request-controlled metric labels, corrupt and bomb compressed
// bodies, slow clients, rule failures in the answers. Each case checks the answer, that it came
// quickly, and that a normal admission request is answered promptly afterwards.

const RULES = SEEN_LABEL_RULE;

const FAILING_RULE = `
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: broken, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/broken
      value: '{{ fail "nope" }}'
`;

/**
 * A rule that spends more than the work meter's CLOCK_EVERY units (1,000 iterations of 8), so it
 * looks at the clock: the smallest kind of rule the time backstop can stop.
 */
const LOOPING_RULE = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: looping, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/looped
      value: '{{ range until 1000 }}{{ end }}yes'
`;

/** Answers must come this fast (generous for a loaded CI machine; they take a few ms). */
const PROMPT_MS = 1000;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function configMap(name = 'cm'): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'team', labels: { app: 'x' } },
    data: {},
  };
}

function review(operation = 'CREATE', object: JsonObject = configMap()): JsonObject {
  const body = admissionReview({
    operation: 'CREATE',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'team',
    name: 'cm',
    object,
  });
  (body.request as JsonObject).operation = operation;
  return body;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

/** A normal admission request is still answered promptly, with the rule applied. */
async function expectHealthy(h: Harness): Promise<void> {
  const { value, ms } = await timed(() => h.post('/dragnet-webhook', review()));
  expect(value.status).toBe(200);
  expect(decodePatch(responseOf(value).response)).toContainEqual({
    op: 'add',
    path: '/metadata/labels/seen',
    value: 'yes',
  });
  expect(ms).toBeLessThan(PROMPT_MS);
}

function sendRaw(
  h: Harness,
  method: string,
  path: string,
  body: Buffer,
  encoding: string,
): Promise<HttpAnswer> {
  return send(h.server.port, testTls().ca, method, path, body, {
    'content-type': 'application/json',
    'content-encoding': encoding,
  });
}

describe('metric labels cannot be grown by requests', () => {
  it('counts any operation outside the admission operations as "other", keeping /metrics small', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) });
    const h = harness;
    const huge = 'X'.repeat(256 * 1024);
    const operations = [
      ...Array.from({ length: 6 }, (_, i) => `${huge}${String(i)}`),
      ...fc.sample(fc.string({ minLength: 1, maxLength: 40 }), { numRuns: 20, seed: 12 }),
      'create',
      'PATCH',
    ].filter((op) => !['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(op));
    const { ms } = await timed(async () => {
      for (const operation of operations) {
        const answer = await h.post('/dragnet-webhook', review(operation));
        expect(answer.status).toBe(200);
        expect(responseOf(answer).response).toMatchObject({ allowed: true });
        expect(responseOf(answer).response.patch).toBeUndefined();
      }
    });
    expect(ms).toBeLessThan(operations.length * 200);
    await expectHealthy(h);
    const metrics = await h.metrics.render();
    expect(metrics.length).toBeLessThan(20_000);
    const operationLabels = new Set(
      [...metrics.matchAll(/operation="([^"]*)"/g)].map((m) => m[1] ?? ''),
    );
    expect([...operationLabels].sort()).toEqual(['CREATE', 'other']);
    expect(metrics).toContain(
      `kubemod_webhook_requests_total{webhook="dragnet",operation="other",result="skipped"} ${String(operations.length)}`,
    );
  }, 20_000);

  it('does not count rules sent to /v1/dryrun in the per-rule metrics', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) });
    const rule = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: `r-${'y'.repeat(200)}`, namespace: 'team' },
      spec: {
        type: 'Patch',
        match: [{ select: '$.kind' }],
        patch: [{ op: 'add', path: '/metadata/labels/x', value: '{{ fail "no" }}' }],
      },
    };
    const answer = await send(
      harness.server.port,
      testTls().ca,
      'PUT',
      '/v1/dryrun',
      JSON.stringify({ resourceManifest: configMap(), modRules: [rule] }),
    );
    expect(answer.status).toBe(200);
    expect(await harness.metrics.render()).not.toContain('yyyy');
  });
});

describe('compressed request bodies', () => {
  const body = Buffer.from(JSON.stringify(review()));
  const gzip = gzipSync(body);
  const cases: [string, Buffer, string][] = [
    ['garbage announced as gzip', Buffer.from('this is not gzip at all'), 'gzip'],
    ['truncated gzip', gzip.subarray(0, Math.floor(gzip.length / 2)), 'gzip'],
    ['gzip with a corrupt middle', corrupt(gzip), 'gzip'],
    ['garbage announced as deflate', Buffer.from([0x78, 0x9c, 1, 2, 3, 4, 5, 6]), 'deflate'],
    ['gzip announced as deflate', gzip, 'deflate'],
    ['garbage announced as br', Buffer.from('not brotli either, not at all'), 'br'],
    ['an unknown encoding', gzip, 'x-bogus'],
  ];

  it.each(cases)('answers %s with 400 KM6003 on every route', async (_name, payload, encoding) => {
    harness = await startHarness({ store: () => storeOf(RULES) });
    for (const [method, path] of [
      ['POST', '/dragnet-webhook'],
      ['POST', '/validate-api-kubemod-io-v1beta1-modrule'],
      ['POST', '/mutate-api-kubemod-io-v1beta1-modrule'],
      ['POST', '/podbinding-webhook'],
      ['PUT', '/v1/dryrun'],
    ] as const) {
      const { value, ms } = await timed(() =>
        sendRaw(harness as Harness, method, path, payload, encoding),
      );
      expect({ path, status: value.status }).toEqual({ path, status: 400 });
      expect(value.json()).toMatchObject({ code: 'KM6003' });
      expect(value.json<{ error: string }>().error).toMatch(/^request body cannot be/);
      expect(ms).toBeLessThan(PROMPT_MS);
    }
    expect(harness.logs.some((l) => l.level === 'error')).toBe(false);
    await expectHealthy(harness);
  });

  it('still serves a valid gzip and deflate body', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) });
    for (const [payload, encoding] of [
      [gzip, 'gzip'],
      [deflateSync(body), 'deflate'],
    ] as const) {
      const answer = await sendRaw(harness, 'POST', '/dragnet-webhook', payload, encoding);
      expect(answer.status).toBe(200);
      expect(responseOf(answer).response.patch).toBeDefined();
    }
  });

  it('cuts a gzip bomb at the body limit without inflating it all', async () => {
    harness = await startHarness({
      store: () => storeOf(RULES),
      limits: { ...DEFAULT_WEBHOOK_LIMITS, bodyLimitBytes: 64 * 1024 },
    });
    // 256 MB of spaces inside a JSON string, 256 KB compressed: 4096 times the limit inflated.
    // Concatenated gzip members inflate as one stream, so the bomb is built without gzipping 256 MB.
    const megabyte = gzipSync(Buffer.alloc(1024 * 1024, 0x20), { level: 9 });
    const bomb = Buffer.concat([
      gzipSync(Buffer.from('{"a":"')),
      ...Array.from({ length: 256 }, () => megabyte),
    ]);
    expect(bomb.length).toBeLessThan(512 * 1024);
    const heapBefore = process.memoryUsage().heapUsed;
    for (const path of ['/dragnet-webhook', '/v1/dryrun']) {
      const method = path === '/v1/dryrun' ? 'PUT' : 'POST';
      const { value, ms } = await timed(() =>
        sendRaw(harness as Harness, method, path, bomb, 'gzip'),
      );
      expect(value.status).toBe(400);
      expect(value.json()).toEqual({
        error: 'request body exceeds the limit of 65536 bytes',
        code: 'KM6004',
      });
      expect(ms).toBeLessThan(PROMPT_MS);
    }
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    await expectHealthy(harness);
  });

  it('counts the compressed bytes too: a chunked stream of empty gzip members is cut at the limit', async () => {
    harness = await startHarness({
      store: () => storeOf(RULES),
      limits: { ...DEFAULT_WEBHOOK_LIMITS, bodyLimitBytes: 64 * 1024 },
    });
    const socket = await tlsSocket(harness.server.port);
    const closed = closedAfter(socket);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
    socket.write(
      'POST /dragnet-webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    // Each member inflates to nothing, so only the compressed side can reach the limit; 64 MB
    // are offered, and the server must stop reading and close long before.
    const members = Buffer.concat(Array.from({ length: 1024 }, () => gzipSync(Buffer.alloc(0))));
    const piece = Buffer.concat([
      Buffer.from(`${members.length.toString(16)}\r\n`),
      members,
      Buffer.from('\r\n'),
    ]);
    const offered = 64 * 1024 * 1024;
    let sent = 0;
    const pump = (): void => {
      while (!socket.destroyed && sent < offered) {
        sent += members.length;
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
    await closed;
    expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 400[\s\S]*KM6004/);
    expect(sent).toBeLessThan(offered);
    await expectHealthy(harness);
  });

  it('serves a brotli body and a gzip body inflating to exactly the limit', async () => {
    const padded = (size: number): Buffer => {
      const text = JSON.stringify(review());
      // Spaces after the JSON are legal and make the inflated size exact.
      return Buffer.concat([Buffer.from(text), Buffer.alloc(size - text.length, 0x20)]);
    };
    const h = await startHarness({
      store: () => storeOf(RULES),
      limits: { ...DEFAULT_WEBHOOK_LIMITS, bodyLimitBytes: 600 * 1024 },
    });
    harness = h;
    const post = (payload: Buffer, encoding: string): Promise<HttpAnswer> =>
      sendRaw(h, 'POST', '/dragnet-webhook', payload, encoding);
    const brotli = await post(brotliCompressSync(body), 'br');
    expect(brotli.status).toBe(200);
    expect(responseOf(brotli).response.patch).toBeDefined();
    // Larger than one inflater chunk (256 KiB), so the body is put together from several.
    const atLimit = await post(gzipSync(padded(600 * 1024)), 'gzip');
    expect(atLimit.status).toBe(200);
    expect(responseOf(atLimit).response.patch).toBeDefined();
    const overLimit = await post(gzipSync(padded(600 * 1024 + 1)), 'gzip');
    expect(overLimit.status).toBe(400);
    expect(overLimit.json()).toMatchObject({ code: 'KM6004' });
  });
});

describe('request bodies', () => {
  it('refuses a body nested a million levels deep without parsing it', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) });
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const { value, ms } = await timed(() => (harness as Harness).post('/dragnet-webhook', deep));
    expect(value.status).toBe(400);
    expect(value.json()).toEqual({
      error: 'request body nests deeper than 10000 levels',
      code: 'KM6003',
    });
    expect(ms).toBeLessThan(PROMPT_MS);
    await expectHealthy(harness);
  });
});

/** Small timeouts so the slow-client cases run in well under a second each. */
const TIGHT = {
  handshakeMs: 300,
  headersMs: 300,
  requestMs: 600,
  keepAliveMs: 200,
  idleSocketMs: 2000,
  checkIntervalMs: 50,
};

/** Resolves with the milliseconds until the server closes the socket. */
function closedAfter(socket: Socket): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve(performance.now() - start);
    });
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes; never finishes on its own. */
function trickle(socket: TLSSocket, text: string, everyMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return;
    socket.write(text[i] ?? '');
    i++;
  }, everyMs);
  return () => {
    clearInterval(timer);
  };
}

describe('bodies over the limit are not read', () => {
  it.each([
    ['declared by Content-Length', true],
    ['found while reading a chunked body', false],
  ])(
    '%s: answers 400 and closes the connection without receiving the rest',
    async (_case, declared) => {
      harness = await startHarness({ store: () => storeOf(RULES) });
      const socket = await tlsSocket(harness.server.port);
      const closed = closedAfter(socket);
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      const limit = DEFAULT_WEBHOOK_LIMITS.bodyLimitBytes;
      const framing = declared
        ? `Content-Length: ${String(limit * 30)}`
        : 'Transfer-Encoding: chunked';
      socket.write(
        `POST /dragnet-webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      );
      // Keep sending (up to 30 times the limit) for as long as the server reads: it must stop
      // reading once the body is refused, and close the connection after its answer.
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (!socket.destroyed && sent < limit * 30) {
          const piece = declared
            ? chunk
            : Buffer.concat([
                Buffer.from(`${chunk.length.toString(16)}\r\n`),
                chunk,
                Buffer.from('\r\n'),
              ]);
          sent += chunk.length;
          if (!socket.write(piece)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      socket.on('error', () => undefined);
      pump();
      await closed;
      expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 400[\s\S]*KM6004/);
      expect(sent).toBeLessThan(limit * 30);
      await expectHealthy(harness);
    },
  );
});

describe('slow clients', () => {
  it('has tight default timeouts (the API server gives up after 30 s)', async () => {
    const { DEFAULT_WEBHOOK_TIMEOUTS } = await import('../../../src/webhook/server.js');
    expect(DEFAULT_WEBHOOK_TIMEOUTS).toEqual({
      handshakeMs: 10_000,
      headersMs: 10_000,
      requestMs: 30_000,
      keepAliveMs: 5_000,
      idleSocketMs: 35_000,
      checkIntervalMs: 1_000,
    });
  });

  it('drops a connection that never starts the TLS handshake', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) }, { timeouts: TIGHT });
    const socket = tcpConnect({ host: '127.0.0.1', port: harness.server.port });
    const ms = await closedAfter(socket);
    expect(ms).toBeGreaterThan(200);
    expect(ms).toBeLessThan(TIGHT.handshakeMs + 700);
    await expectHealthy(harness);
  });

  it('cuts off a client sending its headers byte by byte', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) }, { timeouts: TIGHT });
    const socket = await tlsSocket(harness.server.port);
    const closed = closedAfter(socket);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const stop = trickle(
      socket,
      `POST /dragnet-webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${'X-Pad: y\r\n'.repeat(100)}\r\n`,
      10,
    );
    const ms = await closed;
    stop();
    expect(ms).toBeLessThan(TIGHT.headersMs + 700);
    expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 408|^$/);
    await expectHealthy(harness);
  });

  it('cuts off a client that never finishes its body', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) }, { timeouts: TIGHT });
    const socket = await tlsSocket(harness.server.port);
    const closed = closedAfter(socket);
    socket.write(
      'POST /dragnet-webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
    );
    const stop = trickle(socket, ' '.repeat(100_000), 10);
    const ms = await closed;
    stop();
    expect(ms).toBeGreaterThan(TIGHT.requestMs - 100);
    expect(ms).toBeLessThan(TIGHT.requestMs + 700);
    await expectHealthy(harness);
  });

  it('closes an idle keep-alive connection', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) }, { timeouts: TIGHT });
    const socket = await tlsSocket(harness.server.port);
    const closed = closedAfter(socket);
    const payload = JSON.stringify(review());
    socket.write(
      `POST /dragnet-webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(Buffer.byteLength(payload))}\r\n\r\n${payload}`,
    );
    const answer = await new Promise<string>((resolve) => {
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk.toString('latin1'));
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    // Node keeps an idle connection one second past the keep-alive timeout it advertises.
    expect(await closed).toBeLessThan(TIGHT.keepAliveMs + 1000 + 700);
    await expectHealthy(harness);
  });
});

describe('rules that fail are reported', () => {
  it('dragnet: names the failed rules in a warning, applies the others', async () => {
    harness = await startHarness({ store: () => storeOf(RULES + FAILING_RULE) });
    const answer = await harness.post('/dragnet-webhook', review());
    const { response } = responseOf(answer);
    expect(decodePatch(response)).toEqual([
      { op: 'add', path: '/metadata/labels/seen', value: 'yes' },
    ]);
    expect(response.warnings).toEqual([
      'kubemod-ts: ModRule(s) failed and were skipped: team/broken',
    ]);
  });

  it('dragnet: rules over their time budget fail with KM5002, counted and named', async () => {
    let now = 0;
    harness = await startHarness({
      store: () => storeOf(LOOPING_RULE),
      clock: () => (now += 1000), // every look at the clock is a second later
      // The request's deadline also holds during evaluation (issue 37); this case is about the
      // rule's own time backstop, so the request's deadline is out of reach.
      limits: { ...DEFAULT_WEBHOOK_LIMITS, deadlineMs: 1e12 },
    });
    const answer = await harness.post('/dragnet-webhook', review());
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.warnings).toEqual([
      'kubemod-ts: ModRule(s) failed and were skipped: team/looping',
    ]);
    expect(await harness.metrics.render()).toContain(
      'kubemod_rule_errors_total{rule="team/looping",code="KM5002"} 1',
    );
    expect(harness.logs.find((l) => l.rule === 'team/looping')).toMatchObject({
      level: 'warn',
      code: 'KM5002',
    });
  });

  it('dryrun: lists failed rules in `failures`, keeping patch, diff and rejections', async () => {
    harness = await startHarness();
    const rules = storeOfManifests(RULES + FAILING_RULE);
    const answer = await send(
      harness.server.port,
      testTls().ca,
      'PUT',
      '/v1/dryrun',
      JSON.stringify({ resourceManifest: configMap(), modRules: rules }),
    );
    expect(answer.status).toBe(200);
    const body = answer.json<{
      patch: unknown[];
      diff: string;
      rejections: string[];
      failures: { rule: string; field: string; code: string; message: string }[];
    }>();
    expect(body.patch).toEqual([{ op: 'add', path: '/metadata/labels/seen', value: 'yes' }]);
    expect(body.diff).toMatch(/^\+ {4}seen: '?"?yes/m);
    expect(body.rejections).toEqual([]);
    expect(body.failures).toEqual([
      {
        rule: 'team/broken',
        field: 'spec.patch[0].value',
        code: expect.stringMatching(/^KM\d{4}$/) as unknown,
        message: expect.stringContaining('nope') as unknown,
        failurePolicy: 'Ignore',
      },
    ]);
  });

  it('dryrun: a rule over its time budget is a KM5002 failure, not an error', async () => {
    let now = 0;
    harness = await startHarness({ clock: () => (now += 1000) });
    const answer = await send(
      harness.server.port,
      testTls().ca,
      'PUT',
      '/v1/dryrun',
      JSON.stringify({
        resourceManifest: configMap(),
        modRules: storeOfManifests(LOOPING_RULE),
      }),
    );
    expect(answer.status).toBe(200);
    const body = answer.json<{ patch: unknown[]; failures: { rule: string; code: string }[] }>();
    expect(body.patch).toEqual([]);
    expect(body.failures).toMatchObject([{ rule: 'team/looping', code: 'KM5002' }]);
  });

  it('the validating webhook refuses a 4,000-term select with 403, never 500', async () => {
    harness = await startHarness();
    const select = `$.x == (${Array.from({ length: 4000 }, () => '1').join('+')})`;
    const rule = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'chain', namespace: 'team' },
      spec: {
        type: 'Patch',
        match: [{ select }],
        patch: [{ op: 'add', path: '/a', value: '1' }],
      },
    };
    const { value, ms } = await timed(() =>
      (harness as Harness).post(
        '/validate-api-kubemod-io-v1beta1-modrule',
        admissionReview({
          operation: 'CREATE',
          kind: 'ModRule',
          group: 'api.kubemod.io',
          resource: 'modrules',
          namespace: 'team',
          name: 'chain',
          object: rule,
        }),
      ),
    );
    expect(value.status).toBe(200);
    const { response } = responseOf(value);
    expect(response.allowed).toBe(false);
    expect(response.status?.code).toBe(403);
    expect(response.status?.message).toMatch(/^ModRule team\/chain is invalid: spec/);
    expect(ms).toBeLessThan(PROMPT_MS);
  });
});

describe('/v1/dryrun', () => {
  it('refuses more ModRules than a dry run compiles, quickly', async () => {
    harness = await startHarness({ store: () => storeOf(RULES) });
    const manifests = storeOfManifests(RULES);
    const [template] = manifests;
    if (template === undefined) throw new Error('no rule');
    const many = (count: number): JsonObject[] =>
      Array.from({ length: count }, (_, i) => ({
        ...template,
        metadata: { name: `r${String(i)}`, namespace: 'team' },
      }));
    const put = (count: number): Promise<HttpAnswer> =>
      send(
        (harness as Harness).server.port,
        testTls().ca,
        'PUT',
        '/v1/dryrun',
        JSON.stringify({ resourceManifest: configMap(), modRules: many(count) }),
      );
    const refused = await timed(() => put(10_000));
    expect(refused.value.status).toBe(400);
    expect(refused.value.json()).toEqual({
      error: 'modRules holds 10000 ModRules; a dry run takes at most 100',
      code: 'KM6002',
    });
    expect(refused.ms).toBeLessThan(PROMPT_MS);
    const accepted = await timed(() => put(100));
    expect(accepted.value.status).toBe(200);
    expect(accepted.ms).toBeLessThan(PROMPT_MS);
    await expectHealthy(harness);
  });
});

describe('/metrics', () => {
  it('exposes the event-loop lag histogram while the server runs', async () => {
    harness = await startHarness({}, { lagSampleMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await harness.scrape();
    expect(answer.text).toContain('# TYPE kubemod_event_loop_lag_seconds histogram');
    const count = /kubemod_event_loop_lag_seconds_count (\d+)/.exec(answer.text);
    expect(Number(count?.[1] ?? 0)).toBeGreaterThan(0);
  });
});

/** The ModRule manifests of a YAML text, as JSON for /v1/dryrun. */
function storeOfManifests(yaml: string): JsonObject[] {
  return loadAll(yaml).filter((doc) => doc !== null) as JsonObject[];
}

/** A copy of `data` with bytes in the middle flipped (the CRC no longer matches, or inflate fails). */
function corrupt(data: Buffer): Buffer {
  const copy = Buffer.from(data);
  for (let i = 12; i < Math.min(copy.length - 8, 40); i++) copy[i] = (copy[i] ?? 0) ^ 0x5a;
  return copy;
}
