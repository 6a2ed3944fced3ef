import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  admissionReview,
  responseOf,
  send,
  startHarness,
  storeOf,
  testTls,
  tlsSocket,
  type Harness,
} from './harness.js';

// Issue 36: on SIGTERM the webhook must not refuse connections that kube-proxy still sends it
// while the Pod leaves the Service's endpoints. A real HTTPS server on port 0, the shutdown delay
// injected: the test decides when the delay ends.

const REJECT_RULE = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: no-config, namespace: team }
spec:
  type: Reject
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  rejectMessage: refused
`;

const REVIEW = JSON.stringify(
  admissionReview({
    operation: 'CREATE',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'team',
    name: 'c',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team' } },
  }),
);

interface ManualDelay {
  readonly asked: number[];
  readonly delay: (ms: number) => Promise<void>;
  release(): void;
}

function manualDelay(): ManualDelay {
  const asked: number[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    asked,
    delay: (ms) => {
      asked.push(ms);
      return gate;
    },
    release: () => {
      release();
    },
  };
}

/** Everything the server writes on `socket` until it closes the connection. */
function readUntilClosed(socket: TLSSocket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    socket.once('close', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

function postHead(bodyLength: number, keepAlive: boolean): string {
  return [
    'POST /dragnet-webhook HTTP/1.1',
    'host: localhost',
    'content-type: application/json',
    `content-length: ${String(bodyLength)}`,
    `connection: ${keepAlive ? 'keep-alive' : 'close'}`,
    '',
    '',
  ].join('\r\n');
}

const reviewOf = (port: number): ReturnType<typeof send> =>
  send(port, testTls().ca, 'POST', '/dragnet-webhook', REVIEW);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('webhook lame-duck shutdown', () => {
  it('reports not-ready but keeps answering during the delay, then refuses, in-flight finishes', async () => {
    const delay = manualDelay();
    const store = storeOf(REJECT_RULE);
    harness = await startHarness(
      { store: () => store },
      { shutdownDelayMs: 5_000, shutdownDelay: delay.delay, shutdownGraceMs: 5_000 },
    );
    const { port } = harness.server;
    expect((await send(port, testTls().ca, 'GET', '/readyz')).status).toBe(200);

    // A keep-alive connection (as the API server pools them) that served one request.
    const idle = await tlsSocket(port);
    const idleClosed = readUntilClosed(idle);
    idle.write(postHead(Buffer.byteLength(REVIEW), true) + REVIEW);
    await vi.waitFor(() => {
      expect(idle.bytesRead).toBeGreaterThan(0);
    });
    // A request in flight: its body is half sent when SIGTERM comes.
    const inFlight = await tlsSocket(port);
    const inFlightAnswer = readUntilClosed(inFlight);
    const half = Math.floor(REVIEW.length / 2);
    inFlight.write(postHead(Buffer.byteLength(REVIEW), true) + REVIEW.slice(0, half));

    let closed = false;
    const closing = harness.server.close().then(() => {
      closed = true;
    });
    expect(delay.asked).toEqual([5_000]);

    // Lame duck: not ready; the pooled keep-alive connection still serves its next request and
    // closes after it (`connection: close`); a new connection is still accepted and the Reject
    // rule still refuses, with `connection: close` on the answer.
    expect((await send(port, testTls().ca, 'GET', '/readyz')).status).toBe(503);
    idle.write(postHead(Buffer.byteLength(REVIEW), true) + REVIEW);
    const onIdle = (await idleClosed).split(/(?=HTTP\/1\.1 )/);
    expect(onIdle).toHaveLength(2);
    expect(onIdle[0]?.toLowerCase()).not.toContain('connection: close');
    expect(onIdle[1]?.toLowerCase()).toContain('connection: close');
    expect(onIdle[1]).toContain('"allowed":false');
    const during = await reviewOf(port);
    expect(during.status).toBe(200);
    expect(responseOf(during).response.allowed).toBe(false);
    expect(during.headers.connection).toBe('close');

    // The delay ends: new connections are refused, the in-flight request is still served.
    delay.release();
    await vi.waitFor(async () => {
      await expect(reviewOf(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    });
    expect(closed).toBe(false);
    inFlight.write(REVIEW.slice(half));
    const answer = await inFlightAnswer;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"allowed":false');
    await closing;
    expect(closed).toBe(true);
  });

  it('without a delay close() refuses new connections at once (serve mode, tests)', async () => {
    harness = await startHarness({}, { shutdownGraceMs: 1_000 });
    const { port } = harness.server;
    const closing = harness.server.close();
    await closing;
    await expect(reviewOf(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('drain() alone turns readiness off and keeps serving until close()', async () => {
    const delay = manualDelay();
    harness = await startHarness({}, { shutdownDelayMs: 1_000, shutdownDelay: delay.delay });
    const { port } = harness.server;
    harness.server.drain();
    harness.server.drain();
    expect((await send(port, testTls().ca, 'GET', '/readyz')).status).toBe(503);
    expect((await reviewOf(port)).status).toBe(200);
    expect(delay.asked).toEqual([]);
    delay.release();
  });
});
