/**
 * The floor of `npm run bench:http` (issue 38): the least a Node HTTPS server can do to answer an
 * AdmissionReview. It reads the body, JSON.parses it and answers `allowed` with the request's uid:
 * no rules, no logging, no metrics, no limits. Same TLS material as `serve` (a self-signed RSA 2048
 * chain made by src/tls), same node:https time limits and keep-alive, same answer headers.
 * The benchmark runs it as a child process pinned to the server's core, side by side with `serve`;
 * our throughput is reported as a share of its own.
 *
 * Usage: node dist/bench/floor-server.js; prints serve's listening log line (JSON, with `port`).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createCertificateAuthority,
  generateRsaKeyPairAsync,
  issueCertificate,
} from '../src/tls/certificates.js';
import {
  DEFAULT_WEBHOOK_TIMEOUTS,
  timeoutServerOptions,
} from '../src/webhook/http/server-timeouts.js';

interface Review {
  apiVersion?: unknown;
  request?: { uid?: unknown };
}

/** The floor's whole request path: read, JSON.parse, answer. */
export function floorListener(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let status = 200;
    let json: string;
    try {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      json = JSON.stringify({
        apiVersion: review.apiVersion,
        kind: 'AdmissionReview',
        response: { uid: review.request?.uid, allowed: true },
      });
    } catch {
      status = 400;
      json = '{"error":"malformed"}';
    }
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
  });
}

async function main(): Promise<void> {
  const [caKeys, leafKeys] = await Promise.all([
    generateRsaKeyPairAsync(),
    generateRsaKeyPairAsync(),
  ]);
  const ca = createCertificateAuthority({ commonName: 'kubemod-ts floor CA' }, caKeys);
  const leaf = issueCertificate(
    ca,
    { commonName: 'kubemod-ts', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] },
    leafKeys,
  );
  const server: Server = createServer(
    {
      cert: `${leaf.certPem}${ca.certPem}`,
      key: leaf.keyPem,
      ...timeoutServerOptions(DEFAULT_WEBHOOK_TIMEOUTS),
    },
    floorListener,
  );
  server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port;
    process.stdout.write(`${JSON.stringify({ msg: 'webhook server listening', port })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
  });
}

await main();
