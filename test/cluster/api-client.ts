import { request as httpsRequest } from 'node:https';

/** Where the API server is and how to authenticate to it: a client certificate or a token. */
export interface ApiCredentials {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  readonly caPem: string;
  readonly certPem?: string;
  readonly keyPem?: string;
  /** Sent as `Authorization: Bearer` (a ServiceAccount token, say). */
  readonly token?: string;
}

export interface ApiResponse {
  readonly status: number;
  /** The response body parsed as JSON, or its text if it is not JSON. */
  readonly body: unknown;
}

export type PatchType = 'merge' | 'strategic' | 'json';

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

/**
 * One request to the API server (the harness's own calls: registering Nodes, waiting for the
 * controllers). Resolves whatever the status; rejects only when no answer came.
 */
export function apiRequest(
  credentials: ApiCredentials,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  patchType: PatchType = 'merge',
): Promise<ApiResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (credentials.token !== undefined) headers.authorization = `Bearer ${credentials.token}`;
  if (payload !== undefined) {
    headers['content-type'] = method === 'PATCH' ? CONTENT_TYPES[patchType] : 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise<ApiResponse>((resolve, reject) => {
    const req = httpsRequest(
      `${credentials.server}${path}`,
      {
        method,
        headers,
        ca: credentials.caPem,
        ...(credentials.certPem === undefined ? {} : { cert: credentials.certPem }),
        ...(credentials.keyPem === undefined ? {} : { key: credentials.keyPem }),
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text) as unknown;
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Like {@link apiRequest}, but a status outside 2xx is an error naming the call and the answer. */
export async function apiCall(
  credentials: ApiCredentials,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  patchType?: PatchType,
): Promise<unknown> {
  const response = await apiRequest(credentials, method, path, body, patchType);
  if (response.status < 200 || response.status > 299) {
    const detail =
      typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    throw new Error(`${method} ${path} answered ${String(response.status)}: ${detail}`);
  }
  return response.body;
}
