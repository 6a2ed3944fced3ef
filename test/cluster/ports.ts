import { createServer } from 'node:net';

/** Reserves `count` distinct free ports on 127.0.0.1 (they are released before returning). */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const srv = createServer();
          srv.once('error', reject);
          srv.listen(0, '127.0.0.1', () => {
            resolve(srv);
          });
        }),
    ),
  );
  const ports = servers.map((srv) => {
    const address = srv.address();
    if (address === null || typeof address === 'string') {
      throw new Error('unexpected server address');
    }
    return address.port;
  });
  await Promise.all(
    servers.map(
      (srv) =>
        new Promise<void>((resolve) =>
          srv.close(() => {
            resolve();
          }),
        ),
    ),
  );
  return ports;
}
