import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { KubemodError } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { closeAfterAnswer, pathOf, sendJson } from '../admission/admission-listener.js';
import { errorAnswer } from './errors.js';

/**
 * The request bodies all connections together may hold while they arrive, in bytes, when
 * WebhookLimits.inFlightBodyBytes is unset: 21 bodies at the 3 MiB limit, or thousands of the
 * API server's (a few KB to a few tens of KB each).
 */
export const DEFAULT_IN_FLIGHT_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The budget of a server whose limits are `limits`: inFlightBodyBytes when set, otherwise the
 * default, raised to four bodies at the limit for a body limit above 16 MiB.
 */
export function inFlightBodyBytes(limits: {
  readonly bodyLimitBytes: number;
  readonly inFlightBodyBytes?: number | undefined;
}): number {
  return (
    limits.inFlightBodyBytes ?? Math.max(DEFAULT_IN_FLIGHT_BODY_BYTES, 4 * limits.bodyLimitBytes)
  );
}

/**
 * Bodies declared this small are not tracked: most admission requests are (a Pod, a Deployment
 * and its previous version), and tracking each cost `bench:http` about 10 MB of RSS after its
 * load (154–155 MB against 144–145 MB; a reservation and a 'close' listener per request; at 16 KiB
 * its 16.6 KB requests were still tracked). What they hold together is bounded by the connection
 * caps instead (connection-caps.ts: 256 per client address, 4,096 in all).
 */
export const UNTRACKED_BODY_BYTES = 64 * 1024;

/**
 * A body still arriving after this long may be dropped to make room for a new one. The API
 * server sends a body at once; only a client trickling its body is still sending after seconds.
 */
export const EVICTABLE_AFTER_MS = 2000;

export interface BodyBudgetOptions {
  /** Bytes the bodies of all requests in progress may reserve together. */
  readonly bytes: number;
  /** The per-request body limit: what a body of unknown length (chunked, compressed) reserves. */
  readonly limitBytes: number;
  /** Milliseconds. */
  readonly clock: () => number;
}

/** What admit() decided for a request. */
export type Admission =
  /** Admitted; `evicted` slow bodies were dropped (their connections closed) to make room. */
  | { readonly admitted: true; readonly evicted: number }
  /** Refused: even without the slow bodies there is no room; answer 503 and close. */
  | { readonly admitted: false; readonly evicted: number };

export interface BodyBudget {
  /**
   * Reserves what the request's body may take (its Content-Length, or the body limit when the
   * length is unknown or the body is compressed) until the response `res` closes.
   */
  admit(req: IncomingMessage, res: ServerResponse): Admission;
  /** Bytes reserved now (for tests and diagnostics). */
  reserved(): number;
}

/** One body's room, held by its response until the response closes. */
interface Reservation {
  readonly req: IncomingMessage;
  readonly bytes: number;
  readonly startedAt: number;
  readonly bytesReadAtStart: number;
}

const RESERVATION = Symbol('kubemod body reservation');

interface ReservingResponse extends ServerResponse {
  [RESERVATION]?: Reservation;
}

const ADMITTED: Admission = Object.freeze({ admitted: true, evicted: 0 });

/**
 * Bounds the memory of bodies in flight across all connections. Each connection's body is bounded
 * by the body limit, but a crowd of clients that each trickle a large body for the whole request
 * timeout held one body each: 200 of them grew `serve` by 620 MB in 25 s. With the budget full, a
 * new body first makes room by dropping the bodies that have been arriving longest the slowest
 * (bytes per millisecond since admission, among those still incomplete after
 * EVICTABLE_AFTER_MS), closing their connections; only when that is not enough is it refused.
 * A trickling crowd therefore cannot hold the room the API server's quick bodies need. The
 * request path allocates one reservation per tracked body, and no closure.
 */
export function createBodyBudget(options: BodyBudgetOptions): BodyBudget {
  const live = new Set<Reservation>();
  let used = 0;

  /** Gives the room back, once (an evicted body's response closes later). */
  const release = (reservation: Reservation): void => {
    if (live.delete(reservation)) used -= reservation.bytes;
  };

  /** Drops the slowest incomplete old body; false when none qualifies. */
  const evictOne = (now: number): boolean => {
    let victim: Reservation | undefined;
    let victimRate = Number.POSITIVE_INFINITY;
    for (const reservation of live) {
      const age = now - reservation.startedAt;
      if (age < EVICTABLE_AFTER_MS || reservation.req.complete) continue;
      const received = reservation.req.socket.bytesRead - reservation.bytesReadAtStart;
      const rate = received / age;
      if (rate < victimRate) {
        victim = reservation;
        victimRate = rate;
      }
    }
    if (victim === undefined) return false;
    release(victim);
    victim.req.socket.destroy();
    return true;
  };

  /** The 'close' listener of every reserving response (`this` is the response). */
  function onResponseClose(this: ReservingResponse): void {
    const reservation = this[RESERVATION];
    if (reservation !== undefined) release(reservation);
  }

  return {
    admit(req, res): Admission {
      const bytes = bodyReservation(req, options.limitBytes);
      if (bytes <= UNTRACKED_BODY_BYTES) return ADMITTED;
      const now = options.clock();
      let evicted = 0;
      while (used + bytes > options.bytes) {
        if (!evictOne(now)) return { admitted: false, evicted };
        evicted += 1;
      }
      const reservation = { req, bytes, startedAt: now, bytesReadAtStart: req.socket.bytesRead };
      live.add(reservation);
      used += bytes;
      (res as ReservingResponse)[RESERVATION] = reservation;
      res.on('close', onResponseClose);
      return evicted === 0 ? ADMITTED : { admitted: true, evicted };
    },
    reserved: () => used,
  };
}

/**
 * Bytes a request's body may take: none without a body, its declared length (at most the limit:
 * a longer one is refused unread), the limit when the length is unknown (chunked) or the body is
 * compressed (it is inflated up to the limit).
 */
export function bodyReservation(req: IncomingMessage, limitBytes: number): number {
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (length === undefined && !chunked) return 0;
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (chunked || (encoding !== undefined && encoding !== 'identity')) return limitBytes;
  const declared = Number(length);
  return Number.isSafeInteger(declared) && declared >= 0
    ? Math.min(declared, limitBytes)
    : limitBytes;
}

export interface BudgetedListenerOptions {
  readonly budget: BodyBudget;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * Puts `listener` behind the body budget: a request whose body cannot be given room is answered
 * 503 SERVER_BUSY (`Retry-After: 1`) at once and its connection closed, its body never read.
 */
export function budgetedListener(
  listener: RequestListener,
  options: BudgetedListenerOptions,
): RequestListener {
  return (req, res) => {
    const admission = options.budget.admit(req, res);
    if (admission.evicted > 0) {
      options.metrics.bodiesShed('evicted', admission.evicted);
      options.logger.warn(
        { evicted: admission.evicted },
        'in-flight body budget full: closed the connections of the slowest request bodies',
      );
    }
    if (admission.admitted) {
      listener(req, res);
      return;
    }
    options.metrics.bodiesShed('refused', 1);
    const { status, body } = errorAnswer(
      new KubemodError(
        'SERVER_BUSY',
        'request bodies in progress fill the in-flight body budget; retry later',
      ),
      options.logger,
      pathOf(req.url),
    );
    closeAfterAnswer(req, res);
    sendJson(res, status, JSON.stringify(body), { 'retry-after': '1' });
  };
}
