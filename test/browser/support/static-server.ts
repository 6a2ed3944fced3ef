import { createServer, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

/** A plain HTTP server on 127.0.0.1 (port 0), for pages and for manifests a page fetches. */
export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.yaml': 'application/yaml; charset=utf-8',
};

/**
 * Serves the files of `dir` as they are (no Content-Security-Policy, as a static host would),
 * and `extra` paths (path → body, CORS header or not): a manifest another origin offers. Without
 * `dir` (a manifest host), its 404s allow any origin to read them.
 */
export async function startStaticServer(
  dir: string | undefined,
  extra: Readonly<Record<string, { body: string; cors: boolean }>> = {},
): Promise<StaticServer> {
  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer): void => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const own = extra[path];
    if (own !== undefined) {
      if (own.cors) res.setHeader('access-control-allow-origin', '*');
      send(res, 200, 'application/yaml; charset=utf-8', own.body);
      return;
    }
    if (dir === undefined) {
      // A manifest host's 404 is readable by any page, so the page can say it is missing.
      res.setHeader('access-control-allow-origin', '*');
      send(res, 404, 'text/plain', 'not found');
      return;
    }
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dir)) {
      send(res, 404, 'text/plain', 'not found');
      return;
    }
    readFile(file).then(
      (body) => {
        send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', body);
      },
      () => {
        send(res, 404, 'text/plain', 'not found');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${String(address.port)}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
