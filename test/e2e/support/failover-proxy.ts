import { connect, createServer, type Server, type Socket } from 'node:net';

export interface FailoverProxy {
  /** `https://127.0.0.1:<port>`: what the webhook configurations point at. */
  readonly urlBase: string;
  /** The backends, tried in order for each connection (`host:port` URLs' ports). */
  setBackends(ports: readonly number[]): void;
  close(): Promise<void>;
}

/**
 * A TCP forwarder on loopback standing in for the webhook Service in front of several operator
 * replicas: each connection goes to the first backend that accepts it, so when one replica stops
 * the API server's next webhook call reaches another. TLS passes through untouched.
 */
export async function startFailoverProxy(initial: readonly number[]): Promise<FailoverProxy> {
  let backends = [...initial];
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((client) => {
    track(client);
    client.pause();
    const attempt = (index: number): void => {
      const port = backends[index];
      if (port === undefined) {
        client.destroy();
        return;
      }
      const upstream = connect({ host: '127.0.0.1', port });
      upstream.once('error', () => {
        upstream.destroy();
        attempt(index + 1);
      });
      upstream.once('connect', () => {
        track(upstream);
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    urlBase: `https://127.0.0.1:${String(address.port)}`,
    setBackends(ports): void {
      backends = [...ports];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
