import type { Socket } from 'node:net';
import type { Server } from 'node:https';

/**
 * Open connections at most (default). An open TLS connection holds about 37 KB of the process
 * (measured: 2,000 idle ones grew `serve` by 74 MB), and a client may hold one through the
 * handshake and header timeouts without sending a request: 4,096 is about 150 MB. The API server
 * needs far fewer (one per request in flight at most).
 */
export const DEFAULT_MAX_CONNECTIONS = 4096;

/**
 * Open connections from one client address at most (default): one pod cannot take the room of
 * everyone else. The API server (or the proxy it reaches webhooks through) opens one connection
 * per admission request in flight, far fewer than this.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

export interface ConnectionCaps {
  readonly total: number;
  readonly perAddress: number;
}

/** Why a connection was closed at once. */
export type DropReason = 'total' | 'address';

/**
 * Closes new connections past `caps` at once, before their TLS handshake: past `total` open
 * connections (node's maxConnections), or past `perAddress` from the same client address. The
 * per-address counts live only while connections are open, so the map holds at most `total`
 * addresses.
 */
export function capConnections(
  server: Server,
  caps: ConnectionCaps,
  onDrop: (reason: DropReason) => void,
): void {
  server.maxConnections = caps.total;
  server.on('drop', () => {
    onDrop('total');
  });
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > caps.perAddress) {
      onDrop('address');
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
