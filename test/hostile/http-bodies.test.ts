import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_LIMITS, DEFAULT_WEBHOOK_TIMEOUTS } from '../../src/webhook/server.js';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import { deepArrayJson, manifestJson } from './support/generators.js';
import { trickle } from './support/http.js';
import {
  dryrunJson,
  expectBounded,
  expectPromptAnswer,
  hostileRequest,
  PATHS,
  reviewJson,
  startHostileServer,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 8 and slow clients: every malformed, corrupt, oversized or slow body gets a
// 4xx (or is cut off) without a 500, a stall or a stuck connection.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const LIMIT = DEFAULT_WEBHOOK_LIMITS.bodyLimitBytes;
const REVIEW = reviewJson(manifestJson('{}'));
const ROUTES: [string, string, string][] = [
  ['dragnet', 'POST', PATHS.dragnet],
  ['validating webhook', 'POST', PATHS.validate],
  ['dryrun', 'PUT', PATHS.dryrun],
];

const gzip = gzipSync(Buffer.from(REVIEW));
const deflate = deflateSync(Buffer.from(REVIEW));

/** [name, body, content-encoding, expected statuses] */
const CORRUPT: [string, Buffer, string, number[]][] = [
  [
    'gzip with a corrupt header',
    Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0xff]), Buffer.alloc(64, 7)]),
    'gzip',
    [400],
  ],
  ['gzip cut in half', gzip.subarray(0, Math.floor(gzip.length / 2)), 'gzip', [400]],
  [
    'gzip with a flipped byte',
    Buffer.from(gzip.map((b, i) => (i === 20 ? b ^ 0xff : b))),
    'gzip',
    [400],
  ],
  [
    'gzip with a wrong checksum',
    Buffer.concat([gzip.subarray(0, gzip.length - 8), Buffer.alloc(8, 0)]),
    'gzip',
    [400],
  ],
  ['plain text labelled gzip', Buffer.from(REVIEW), 'gzip', [400]],
  ['deflate garbage', Buffer.alloc(256, 0xab), 'deflate', [400]],
  ['deflate cut in half', deflate.subarray(0, Math.floor(deflate.length / 2)), 'deflate', [400]],
  ['an unknown encoding', Buffer.from(REVIEW), 'x-hostile', [400, 415]],
  ['brotli garbage', Buffer.alloc(256, 0xcd), 'br', [400, 415]],
  ['gzip inside gzip', gzipSync(gzip), 'gzip, gzip', [200, 400, 415]],
  [
    'a gzip bomb (32 MB of zeros in 32 KB)',
    gzipSync(Buffer.alloc(32 * 1024 * 1024), { level: 9 }),
    'gzip',
    [400, 413],
  ],
];

const MALFORMED: [string, string][] = [
  ['an empty body', ''],
  ['truncated JSON', REVIEW.slice(0, REVIEW.length / 2)],
  ['trailing garbage', `${REVIEW}}}}`],
  ['NaN and comments', '{"apiVersion": NaN /* x */}'],
  ['a lone surrogate and NUL bytes', '{"a":"\ud800\u0000"}'],
  ['JSON nested 200,000 deep', deepArrayJson(200_000)],
  ['a JSON string that is not an object', '"AdmissionReview"'],
  ['an array', '[1,2,3]'],
  ['null', 'null'],
  ['100,000 keys', `{${Array.from({ length: 100_000 }, (_, i) => `"k${String(i)}":0`).join(',')}}`],
];

describe('corrupt compressed bodies', () => {
  for (const [route, method, path] of ROUTES) {
    it.each(CORRUPT)(
      `${route}: %s → 4xx`,
      async (_name, body, encoding, statuses) => {
        const measured = await hostileRequest(server, method, path, body, {
          'content-type': 'application/json',
          'content-encoding': encoding,
        });
        expectBounded(measured);
        expect(statuses, measured.value.text.slice(0, 300)).toContain(measured.value.status);
        if (measured.value.status >= 400) {
          expect(JSON.parse(measured.value.text)).toMatchObject({
            code: expect.stringMatching(/^KM6/) as string,
          });
        }
      },
      CASE_TIMEOUT_MS,
    );
  }
});

describe('malformed JSON', () => {
  for (const [route, method, path] of ROUTES) {
    it.each(MALFORMED)(
      `${route}: %s → 400`,
      async (_name, body) => {
        const measured = await hostileRequest(server, method, path, body);
        expectBounded(measured);
        expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(400);
        const answer = JSON.parse(measured.value.text) as { error: string; code: string };
        expect(answer.code).toMatch(/^KM6/);
        expect(answer.error.length).toBeLessThan(1000);
      },
      CASE_TIMEOUT_MS,
    );
  }
});

describe('oversized bodies', () => {
  for (const [route, method, path] of ROUTES) {
    it(
      `${route}: a body over the limit → 413 (or 400) naming the limit`,
      async () => {
        const body = Buffer.alloc(LIMIT + 1024, 0x20);
        const measured = await hostileRequest(server, method, path, body);
        expectBounded(measured);
        expect([400, 413]).toContain(measured.value.status);
        expect(JSON.parse(measured.value.text)).toMatchObject({ code: 'KM6004' });
      },
      CASE_TIMEOUT_MS,
    );

    it(
      `${route}: a declared content-length over the limit is refused without reading`,
      async () => {
        const head = `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(LIMIT * 100)}\r\n\r\n`;
        const outcome = await trickle(server, '{"apiVersion":', 1000, 5000, head, true);
        expect(outcome.received).toMatch(/^HTTP\/1\.1 4(00|13)/);
        expect(outcome.written, 'the server waited for the body').toBeLessThan(5);
      },
      CASE_TIMEOUT_MS,
    );
  }

  it(
    'a dryrun body just under the limit is answered',
    async () => {
      const padding = 'p'.repeat(LIMIT - 4096);
      const body = dryrunJson(manifestJson(`{"padding":"${padding}"}`), []);
      const measured = await hostileRequest(server, 'PUT', PATHS.dryrun, body);
      expectBounded(measured);
      expect(measured.value.status).toBe(200);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('slow clients', () => {
  // The API server gives up on a webhook after at most 30 s; a connection that has not sent its
  // headers (or its body) by then only holds a socket. The server checks the request timeout once
  // per check interval, and the clock here starts before the TLS handshake: one more second covers
  // that and a loaded machine's timers (a CI run on Node 24 measured 31,006 ms).
  const { requestMs, checkIntervalMs } = DEFAULT_WEBHOOK_TIMEOUTS;
  const CUT_OFF_MS = requestMs + checkIntervalMs + 1_000;

  it(
    'headers sent one byte every 300 ms and a body sent one byte every 300 ms are cut off',
    async () => {
      const headers = `POST ${PATHS.dragnet} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`;
      const head = `POST ${PATHS.dragnet} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(REVIEW.length)}\r\n\r\n`;
      const [slowHeaders, slowBody] = await Promise.all([
        trickle(server, headers, 300, CUT_OFF_MS + 5000),
        trickle(server, REVIEW, 300, CUT_OFF_MS + 5000, head),
        // Meanwhile normal requests are answered promptly.
        (async (): Promise<void> => {
          for (let i = 0; i < 5; i++) {
            await new Promise((resolve) => setTimeout(resolve, 500));
            await expectPromptAnswer(server);
          }
        })(),
      ]);
      expect(slowHeaders.closedAfterMs, 'slow headers were not cut off').toBeLessThan(CUT_OFF_MS);
      expect(slowBody.closedAfterMs, 'a slow body was not cut off').toBeLessThan(CUT_OFF_MS);
      expect(slowHeaders.received).not.toMatch(/^HTTP\/1\.1 5/);
    },
    CUT_OFF_MS + 15_000,
  );

  it(
    'an idle keep-alive connection is closed',
    async () => {
      const request = `POST ${PATHS.dragnet} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(Buffer.byteLength(REVIEW))}\r\nConnection: keep-alive\r\n\r\n${REVIEW}`;
      const outcome = await trickle(server, request, 0, CUT_OFF_MS + 5000);
      expect(outcome.received).toMatch(/^HTTP\/1\.1 200/);
      expect(outcome.closedAfterMs, 'the idle connection was kept open').toBeLessThan(CUT_OFF_MS);
    },
    CUT_OFF_MS + 15_000,
  );
});
