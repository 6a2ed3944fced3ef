import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createCertificateAuthority, issueCertificate } from '../../../src/tls/certificates.js';

/** The parts of an admission.k8s.io/v1 AdmissionRequest the tests look at. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: {
    readonly group: string;
    readonly version: string;
    readonly resource: string;
  };
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: string;
  readonly dryRun?: boolean;
  readonly object?: unknown;
  readonly userInfo?: { readonly username: string; readonly groups?: readonly string[] };
}

export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

/** Returns the JSONPatch to apply, or undefined to allow the request unchanged. */
export type AdmissionHandler = (request: AdmissionRequest) => JsonPatchOperation[] | undefined;

export interface WebhookServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Base64 of the PEM CA that signed the serving certificate, for `clientConfig.caBundle`. */
  readonly caBundle: string;
  /** Every AdmissionRequest received, in order. */
  readonly requests: readonly AdmissionRequest[];
  close(): Promise<void>;
}

function isAdmissionRequest(value: unknown): value is AdmissionRequest {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.uid === 'string' &&
    typeof candidate.operation === 'string' &&
    typeof candidate.kind === 'object' &&
    typeof candidate.resource === 'object'
  );
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

/**
 * Starts an in-test HTTPS admission webhook on 127.0.0.1 (random port) whose serving certificate
 * comes from src/tls/certificates.ts. It answers `POST /mutate` with an admission.k8s.io/v1
 * AdmissionReview carrying the handler's JSONPatch.
 */
export async function startWebhookServer(handler: AdmissionHandler): Promise<WebhookServer> {
  const ca = createCertificateAuthority({ commonName: 'kubemod-e2e-webhook-ca' });
  const serving = issueCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    usages: ['server'],
  });
  const requests: AdmissionRequest[] = [];

  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/mutate') {
      res.writeHead(404).end();
      return;
    }
    const review = JSON.parse(await readBody(req)) as { request?: unknown };
    if (!isAdmissionRequest(review.request)) {
      res.writeHead(400).end('expected an AdmissionReview with a request');
      return;
    }
    const admission = review.request;
    requests.push(admission);
    const patch = handler(admission);
    const response = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: admission.uid,
        allowed: true,
        ...(patch && patch.length > 0
          ? {
              patchType: 'JSONPatch',
              patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
            }
          : {}),
      },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
  };

  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem },
    (req, res) => {
      respond(req, res).catch((error: unknown) => {
        res.writeHead(500).end(error instanceof Error ? error.message : String(error));
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('webhook server has no TCP address');
  }
  return {
    url: `https://127.0.0.1:${String(address.port)}`,
    caBundle: Buffer.from(ca.certPem, 'utf8').toString('base64'),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
