import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';

/**
 * The webhook's way out (issue 36). A replica that is told to stop is still an endpoint of the
 * Service for a moment: the EndpointSlice is updated after the Pod is marked for deletion, and
 * kube-proxy rewrites its rules after that. A connection the API server opens to the Service in
 * that moment still lands on this replica; refused, it fails the admission call, and the dragnet
 * webhook (failurePolicy Ignore) then admits the object unchecked. So the server goes lame-duck
 * first and stops listening only after a delay:
 *
 *   1. drain: readiness turns false (the Pod leaves the endpoints), every response from now on
 *      carries `connection: close` (the API server's next call dials anew, through the Service,
 *      to a replica that stays). New connections are still accepted and answered. Idle
 *      keep-alive connections are left open: the API server keeps using the connections it
 *      pooled (kube-proxy picked their endpoint when they were opened), and a connection the
 *      server closes just as the client sends a POST on it fails that call (the client does not
 *      retry a POST); answered with `connection: close`, the client itself stops using it.
 *   2. after `delayMs`: the listener closes (new connections are refused), idle keep-alive
 *      connections the client did not use during the delay are closed and the others are swept
 *      as in-flight requests finish, background work is awaited, for at most `graceMs`.
 *   3. after `graceMs`: every connection still open is dropped.
 *
 * HTTP/1.1 has no GOAWAY: `connection: close` on a response is its equivalent. The webhook port
 * negotiates no HTTP/2.
 */
export interface LameDuck {
  /** True from drain() on. */
  readonly draining: boolean;
  /** `listener` with `connection: close` on every response once draining. */
  wrap(
    listener: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void;
  /** Step 1 (idempotent): from now on responses close their connection. */
  drain(): void;
}

export function createLameDuck(): LameDuck {
  let draining = false;
  return {
    get draining(): boolean {
      return draining;
    },
    wrap(listener) {
      return (req, res) => {
        if (draining) res.setHeader('connection', 'close');
        listener(req, res);
      };
    },
    drain(): void {
      draining = true;
    },
  };
}

export interface ShutdownTiming {
  /** Step 1 to step 2: how long a draining server still accepts connections. */
  readonly delayMs: number;
  /** Step 2 to step 3: how long in-flight requests and background work get. */
  readonly graceMs: number;
  /** Waits `ms` (tests inject a delay they resolve themselves). */
  readonly delay: (ms: number) => Promise<void>;
}

/** Steps 2 and 3 after the delay (the caller has drained): resolves once the server is closed. */
export async function closeAfterDelay(
  server: Server,
  pending: ReadonlySet<Promise<void>>,
  timing: ShutdownTiming,
): Promise<void> {
  if (timing.delayMs > 0) await timing.delay(timing.delayMs);
  const stopped = new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  // Keep-alive connections with no request in flight are closed at once and as soon as in-flight
  // ones finish; after the grace period every connection is dropped.
  server.closeIdleConnections();
  const sweeper = setInterval(() => {
    server.closeIdleConnections();
  }, 50);
  const deadline = setTimeout(() => {
    server.closeAllConnections();
  }, timing.graceMs);
  let giveUp: NodeJS.Timeout | undefined;
  try {
    await stopped;
    const timeout = new Promise<void>((resolve) => {
      giveUp = setTimeout(resolve, timing.graceMs);
    });
    await Promise.race([Promise.allSettled([...pending]), timeout]);
  } finally {
    clearInterval(sweeper);
    clearTimeout(deadline);
    clearTimeout(giveUp);
  }
}

/** The default delay: a plain timer. */
export function timerDelay(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });
}
