import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bodyReservation,
  createBodyBudget,
  EVICTABLE_AFTER_MS,
  inFlightBodyBytes,
  UNTRACKED_BODY_BYTES,
} from '../../../src/webhook/http/body-budget.js';
import { DEFAULT_WEBHOOK_LIMITS } from '../../../src/webhook/server.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  startHarness,
  SEEN_LABEL_RULE,
  storeOf,
  testTls,
  tlsSocket,
  type Harness,
} from './harness.js';

// Issue #12: the bodies of all requests in progress are bounded together, and a crowd trickling
// large bodies cannot hold the room the API server's quick ones need.

/** A request as the budget sees it: headers, whether its body has ended, its socket. */
function fakeRequest(
  headers: Record<string, string>,
  socket = { bytesRead: 0, destroyed: false },
): { req: IncomingMessage; socket: typeof socket; end(): void } {
  const fake = {
    headers,
    complete: false,
    socket: Object.assign(socket, {
      destroy(): void {
        socket.destroyed = true;
      },
    }),
  };
  return {
    req: fake as unknown as IncomingMessage,
    socket,
    end(): void {
      fake.complete = true;
    },
  };
}

describe('bodyReservation', () => {
  const limit = 1000;
  it.each([
    ['no body', {}, 0],
    ['an empty body', { 'content-length': '0' }, 0],
    ['a declared length', { 'content-length': '120' }, 120],
    ['a declared length over the limit', { 'content-length': '5000' }, limit],
    ['a length that is not a number', { 'content-length': 'x' }, limit],
    ['a chunked body', { 'transfer-encoding': 'chunked' }, limit],
    ['a compressed body', { 'content-length': '10', 'content-encoding': 'gzip' }, limit],
    ['an identity encoding', { 'content-length': '10', 'content-encoding': 'identity' }, 10],
  ])('%s', (_case, headers: Record<string, string>, expected) => {
    expect(bodyReservation(fakeRequest(headers).req, limit)).toBe(expected);
  });
});

describe('inFlightBodyBytes', () => {
  it('is the limit given, else 64 MiB, or four bodies at a larger body limit', () => {
    const mib = 1024 * 1024;
    expect(inFlightBodyBytes({ bodyLimitBytes: 3 * mib, inFlightBodyBytes: 5 })).toBe(5);
    expect(inFlightBodyBytes({ bodyLimitBytes: 3 * mib })).toBe(64 * mib);
    expect(inFlightBodyBytes({ bodyLimitBytes: 100 * mib })).toBe(400 * mib);
  });
});

describe('createBodyBudget', () => {
  it('reserves until released, evicts the slowest old incomplete body, refuses when none', () => {
    const k = UNTRACKED_BODY_BYTES + 1;
    let now = 0;
    const budget = createBodyBudget({ bytes: 3 * k, limitBytes: 2 * k, clock: () => now });
    const responses: EventEmitter[] = [];
    /** A response: the budget listens for its 'close'. */
    const keep = (): ServerResponse => {
      const res = new EventEmitter();
      responses.push(res);
      return res as unknown as ServerResponse;
    };
    const length = (bytes: number): Record<string, string> => ({
      'content-length': String(bytes),
    });
    const slow = fakeRequest(length(k));
    const slower = fakeRequest(length(k));
    const done = fakeRequest(length(k));
    expect(budget.admit(slow.req, keep())).toEqual({ admitted: true, evicted: 0 });
    expect(budget.admit(slower.req, keep())).toEqual({ admitted: true, evicted: 0 });
    expect(budget.admit(done.req, keep())).toEqual({ admitted: true, evicted: 0 });
    expect(budget.reserved()).toBe(3 * k);

    // Full, and nothing has been arriving long enough to be dropped: refused, but a body without
    // length or a small one is not tracked (the connection cap bounds those).
    now = EVICTABLE_AFTER_MS - 1;
    expect(budget.admit(fakeRequest(length(k)).req, keep())).toEqual({
      admitted: false,
      evicted: 0,
    });
    expect(budget.admit(fakeRequest({}).req, keep())).toEqual({ admitted: true, evicted: 0 });
    expect(budget.admit(fakeRequest(length(k - 1)).req, keep())).toEqual({
      admitted: true,
      evicted: 0,
    });
    expect(budget.reserved()).toBe(3 * k);

    // Later: `done` has its whole body (never evicted), `slow` received more than `slower`.
    now = EVICTABLE_AFTER_MS + 1000;
    done.end();
    slow.socket.bytesRead = 80;
    slower.socket.bytesRead = 20;
    expect(budget.admit(fakeRequest(length(2 * k)).req, keep())).toEqual({
      admitted: true,
      evicted: 2,
    });
    expect(slower.socket.destroyed).toBe(true);
    expect(slow.socket.destroyed).toBe(true);
    expect(budget.reserved()).toBe(3 * k);

    // Only complete or young bodies left: refused.
    expect(budget.admit(fakeRequest(length(k)).req, keep())).toEqual({
      admitted: false,
      evicted: 0,
    });
    // Closing twice, or the response of an evicted body closing later, gives back once.
    for (const res of responses) res.emit('close');
    for (const res of responses) res.emit('close');
    expect(budget.reserved()).toBe(0);
  });
});

const REVIEW = admissionReview({
  operation: 'CREATE',
  kind: 'ConfigMap',
  resource: 'configmaps',
  namespace: 'team',
  name: 'cm',
  object: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'team' },
    // Large enough for the budget to track it.
    data: { pad: 'x'.repeat(UNTRACKED_BODY_BYTES) },
  },
});

let harness: Harness | undefined;
const sockets: TLSSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await harness?.close();
  harness = undefined;
});

/** A connection that declares a `length` byte body and sends only its first bytes. */
async function trickling(port: number, length: number): Promise<TLSSocket> {
  const socket = await connected(port);
  socket.write(
    `POST /dragnet-webhook HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${String(length)}\r\n\r\n{"a":"`,
  );
  return socket;
}

describe('the in-flight body budget on the HTTPS server', () => {
  it('refuses a body with 503 while trickling bodies fill it, then drops them to serve it', async () => {
    const limit = 256 * 1024;
    harness = await startHarness({
      store: () => storeOf(SEEN_LABEL_RULE),
      limits: { ...DEFAULT_WEBHOOK_LIMITS, bodyLimitBytes: limit, inFlightBodyBytes: 2 * limit },
    });
    const h = harness;
    const hogs = [await trickling(h.server.port, limit), await trickling(h.server.port, limit)];
    const closed = hogs.map(
      (socket) =>
        new Promise<void>((resolve) =>
          socket.once('close', () => {
            resolve();
          }),
        ),
    );
    await sleep(200); // both are admitted and reading

    const refused = await h.post('/dragnet-webhook', REVIEW);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({
      code: 'KM6005',
      error: 'request bodies in progress fill the in-flight body budget; retry later',
    });

    await sleep(EVICTABLE_AFTER_MS + 100);
    const start = performance.now();
    const served = await h.post('/dragnet-webhook', REVIEW);
    expect(performance.now() - start).toBeLessThan(1000);
    expect(served.status).toBe(200);
    expect(decodePatch(responseOf(served).response)).toEqual([
      { op: 'add', path: '/metadata/labels', value: { seen: 'yes' } },
    ]);
    await Promise.race([Promise.any(closed), sleep(2000)]);
    expect(
      hogs.filter((socket) => socket.destroyed || socket.readyState === 'closed'),
    ).toHaveLength(1);
    const metrics = await h.metrics.render();
    expect(metrics).toContain('kubemod_webhook_bodies_shed_total{reason="refused"} 1');
    expect(metrics).toContain('kubemod_webhook_bodies_shed_total{reason="evicted"} 1');
  }, 30_000);
});

describe('the connection caps', () => {
  it.each([
    ['in all', { total: 2 }, 'total'],
    ['from one client address', { perAddress: 2 }, 'address'],
  ])(
    '%s: close connections past the cap at once, and serve again when one ends',
    async (_case, maxConnections, reason) => {
      harness = await startHarness({ store: () => storeOf(SEEN_LABEL_RULE) }, { maxConnections });
      const h = harness;
      const idle = [await connected(h.server.port), await connected(h.server.port)];
      const third = tlsConnect({
        host: '127.0.0.1',
        port: h.server.port,
        ca: testTls().ca,
        servername: 'localhost',
      });
      sockets.push(third);
      const outcome = await new Promise<string>((resolve) => {
        third.once('secureConnect', () => {
          resolve('handshake');
        });
        third.once('error', () => {
          resolve('closed');
        });
        third.once('close', () => {
          resolve('closed');
        });
      });
      expect(outcome).toBe('closed');
      idle[0]?.destroy();
      await sleep(100);
      const served = await h.post('/dragnet-webhook', REVIEW);
      expect(served.status).toBe(200);
      expect(await h.metrics.render()).toContain(
        `kubemod_webhook_connections_dropped_total{reason="${reason}"} 1`,
      );
    },
    30_000,
  );
});

/** A TLS connection that finished its handshake and sends nothing; closed after the test. */
async function connected(port: number): Promise<TLSSocket> {
  const socket = await tlsSocket(port);
  sockets.push(socket);
  socket.on('error', () => undefined);
  return socket;
}
