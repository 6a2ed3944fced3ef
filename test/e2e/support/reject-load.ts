import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { apiRequest, type ApiCredentials } from '../../cluster/api-client.js';
import { kubeconfig } from './kubectl.js';

// Bounded admission load against the harness's API server only: a steady stream of ConfigMaps
// that a Reject rule must refuse, each request timed. What answers 201 got through the webhook.

export interface LoadFigures {
  readonly sent: number;
  /** Refused with the rule's message (what must happen to every request). */
  readonly refused: number;
  /** Created: admitted although the rule rejects them. */
  readonly through: number;
  /** Neither: webhook unreachable with failurePolicy Fail, timeouts, API server errors. */
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The first few non-refusal answers, for the failure message. */
  readonly samples: readonly string[];
  /** When each request that got through was sent (ms since the epoch). */
  readonly throughSentAt: readonly number[];
  /** When each failed request was sent (ms since the epoch). */
  readonly failedSentAt: readonly number[];
}

/** The admin credentials of the e2e kubeconfig (client certificate). */
export function adminCredentials(): ApiCredentials {
  const config = load(readFileSync(kubeconfig(), 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
  const cluster = config.clusters[0]?.cluster;
  const user = config.users[0]?.user;
  if (cluster === undefined || user === undefined) throw new Error('kubeconfig has no cluster');
  return {
    server: cluster.server,
    caPem: b64(cluster['certificate-authority-data']),
    certPem: b64(user['client-certificate-data']),
    keyPem: b64(user['client-key-data']),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, index)] ?? 0);
}

export interface RejectLoad {
  /** Stops sending, waits for the answers in flight, returns the figures. */
  stop(): Promise<LoadFigures>;
}

/**
 * Sends `perSecond` ConfigMap creations (labelled `label`) to `namespace` until stopped. Each
 * request has the API client's 10 s timeout; a request without an answer counts as failed.
 */
export function startRejectLoad(
  api: ApiCredentials,
  namespace: string,
  label: Readonly<Record<string, string>>,
  rejectMessage: string,
  perSecond = 20,
): RejectLoad {
  const latencies: number[] = [];
  const samples: string[] = [];
  let sent = 0;
  let refused = 0;
  let through = 0;
  let failed = 0;
  const throughSentAt: number[] = [];
  const failedSentAt: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const one = async (): Promise<void> => {
    sent += 1;
    const sentAt = Date.now();
    const started = performance.now();
    try {
      const response = await apiRequest(api, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'flood-', labels: label },
        data: { n: String(sent) },
      });
      latencies.push(performance.now() - started);
      const text = JSON.stringify(response.body);
      if (response.status === 201) {
        through += 1;
        throughSentAt.push(sentAt);
      } else if (text.includes(rejectMessage)) refused += 1;
      else {
        failed += 1;
        failedSentAt.push(sentAt);
        if (samples.length < 5) samples.push(`${String(response.status)} ${text.slice(0, 300)}`);
      }
    } catch (error: unknown) {
      failed += 1;
      failedSentAt.push(sentAt);
      if (samples.length < 5) samples.push(String(error));
    }
  };
  const timer = setInterval(() => {
    const request = one();
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }, 1000 / perSecond);
  return {
    async stop(): Promise<LoadFigures> {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        sent,
        refused,
        through,
        failed,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: Math.round(sorted.at(-1) ?? 0),
        samples,
        throughSentAt,
        failedSentAt,
      };
    },
  };
}
