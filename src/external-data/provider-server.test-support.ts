import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  issueCertificate,
  type CertificateBundle,
} from '../tls/certificates.js';
import type { ExternalDataProvider } from './provider-types.js';

/** A CA and a server certificate for 127.0.0.1 it signed. */
export interface ServerTls {
  readonly ca: CertificateBundle;
  readonly server: CertificateBundle;
}

export function serverTls(name: string): ServerTls {
  const ca = createCertificateAuthority({ commonName: `${name} CA` });
  const server = issueCertificate(ca, { commonName: name, ipAddresses: ['127.0.0.1'] });
  return { ca, server };
}

/** What the test server saw of one request. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** CN of the client certificate, when one was presented and verified. */
  readonly clientCn: string | undefined;
}

export type TestHandler = (req: SeenRequest, res: ServerResponse) => void;

export interface TestProviderServer {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Replaces what the server answers. */
  handle(handler: TestHandler): void;
  close(): Promise<void>;
}

/**
 * A real HTTPS server on 127.0.0.1, port 0, recording each request; `clientCa` makes it ask
 * for (but not require) a client certificate signed by that CA.
 */
export async function startProviderServer(
  tls: ServerTls,
  handler: TestHandler,
  clientCa?: CertificateBundle,
): Promise<TestProviderServer> {
  const seen: SeenRequest[] = [];
  let current = handler;
  const server: Server = createServer(
    {
      cert: tls.server.certPem,
      key: tls.server.keyPem,
      ...(clientCa === undefined
        ? {}
        : { requestCert: true, rejectUnauthorized: false, ca: clientCa.certPem }),
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const socket = req.socket;
        const peer =
          isTlsSocket(socket) && socket.authorized ? socket.getPeerCertificate() : undefined;
        const cn = peer?.subject.CN;
        const request: SeenRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          clientCn: typeof cn === 'string' ? cn : undefined,
        };
        seen.push(request);
        current(request, res);
      });
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${String(port)}/`,
    seen,
    handle(next) {
      current = next;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Answers every asked key with `value-of-<key>`, except keys starting `err-` (an error). */
export const echoProvider: TestHandler = (req, res) => {
  const { keys } = JSON.parse(req.body) as { keys: string[] };
  const items = keys.map((key) =>
    key.startsWith('err-') ? { key, error: `no ${key}` } : { key, value: `value-of-${key}` },
  );
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ items }));
};

/** A provider object for a test server. */
export function testProvider(
  url: string,
  caPem: string,
  extra: Partial<ExternalDataProvider> = {},
): ExternalDataProvider {
  return {
    name: 'test-provider',
    resourceVersion: '1',
    url,
    caPem,
    clientCertSecretName: undefined,
    timeoutMs: 1_000,
    cacheTTLSeconds: 60,
    failureTTLSeconds: 5,
    allowedNamespaces: [],
    ...extra,
  };
}

function isTlsSocket(socket: unknown): socket is TLSSocket {
  return socket instanceof TLSSocket;
}
