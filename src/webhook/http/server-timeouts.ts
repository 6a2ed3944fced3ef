import type { Server } from 'node:https';

/**
 * How long a client may take. The API server gives up on a webhook call after at most 30 s, so a
 * connection slower than that only holds memory and a socket: it is cut off.
 */
export interface WebhookTimeouts {
  /** TLS handshake, from the connection (default 10 s). */
  readonly handshakeMs: number;
  /** All request headers, from the first byte of the request (default 10 s). */
  readonly headersMs: number;
  /** The whole request, headers and body (default 30 s). */
  readonly requestMs: number;
  /** An idle keep-alive connection between two requests (default 5 s). */
  readonly keepAliveMs: number;
  /** A socket with no traffic at all in either direction (default 35 s). */
  readonly idleSocketMs: number;
  /** How often the server checks headersMs and requestMs (default 1 s). */
  readonly checkIntervalMs: number;
}

export const DEFAULT_WEBHOOK_TIMEOUTS: WebhookTimeouts = Object.freeze({
  handshakeMs: 10_000,
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  idleSocketMs: 35_000,
  checkIntervalMs: 1_000,
});

/** The node:https server options that enforce `timeouts`. */
export function timeoutServerOptions(timeouts: WebhookTimeouts): {
  handshakeTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    handshakeTimeout: timeouts.handshakeMs,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  };
}

/**
 * Drops sockets without any traffic for `timeouts.idleSocketMs` (a stalled upload, a client that
 * stops reading). Node keeps an idle keep-alive connection one second past keepAliveMs.
 */
export function dropIdleSockets(server: Server, timeouts: WebhookTimeouts): void {
  server.setTimeout(timeouts.idleSocketMs, (socket) => {
    socket.destroy();
  });
}
