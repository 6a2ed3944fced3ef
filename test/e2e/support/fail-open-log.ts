import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kubeconfig } from './kubectl.js';

// What the API server says when a webhook call fails. kube-apiserver logs every failed call of an
// admission webhook (klog, warning): "Failed calling webhook, failing open <name>: <error>" under
// failurePolicy Ignore (the object is admitted unchecked), "… failing closed …" under Fail (the
// request is refused). The error names the path that broke: a dial refused by the dead replica's
// address (kube-proxy still sent the connection there), a connection reset or EOF (a request in
// flight, or a pooled keep-alive connection, on the killed process), a TLS error, a timeout.

export type FailCause =
  'connection refused' | 'connection reset' | 'EOF' | 'timeout' | 'TLS' | 'no endpoints' | 'other';

export interface WebhookCallFailure {
  /** ms since the epoch (klog writes local time, which is UTC on the harness's machines). */
  readonly at: number;
  readonly webhook: string;
  readonly failing: 'open' | 'closed';
  readonly cause: FailCause;
  readonly error: string;
}

const LINE =
  /^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+)\s+\d+ [^\]]+\] Failed calling webhook, failing (open|closed) ([^:]+): (.*)$/;

export function failCause(error: string): FailCause {
  if (error.includes('connection refused')) return 'connection refused';
  if (error.includes('connection reset')) return 'connection reset';
  if (/\bEOF\b/.test(error)) return 'EOF';
  if (/deadline exceeded|Timeout|timed out/i.test(error)) return 'timeout';
  if (/x509|tls:|certificate/i.test(error)) return 'TLS';
  if (/no endpoints|service .* not found|no route/i.test(error)) return 'no endpoints';
  return 'other';
}

/** Parses klog lines of kube-apiserver; `year` completes klog's month-day timestamps. */
export function parseWebhookFailures(log: string, year: number): WebhookCallFailure[] {
  const failures: WebhookCallFailure[] = [];
  for (const line of log.split('\n')) {
    const m = LINE.exec(line);
    if (m === null) continue;
    const [, mo, d, h, mi, s, frac, failing, webhook, error] = m;
    const ms = Number((frac ?? '0').padEnd(3, '0').slice(0, 3));
    failures.push({
      at: Date.UTC(year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms),
      webhook: webhook ?? '',
      failing: failing === 'closed' ? 'closed' : 'open',
      cause: failCause(error ?? ''),
      error: (error ?? '').slice(0, 400),
    });
  }
  return failures;
}

/** The harness's kube-apiserver log (next to the e2e kubeconfig, in the control plane's dir). */
export function apiserverLogPath(): string {
  return join(dirname(kubeconfig()), 'kube-apiserver.log');
}

/** Failed calls of `webhook` logged at or after `since` (ms since the epoch). */
export function webhookFailuresSince(webhook: string, since: number): WebhookCallFailure[] {
  const log = readFileSync(apiserverLogPath(), 'utf8');
  return parseWebhookFailures(log, new Date(since).getUTCFullYear()).filter(
    (f) => f.webhook === webhook && f.at >= since,
  );
}

/** How many failures had each cause, e.g. { "connection refused": 2 }. */
export function causeCounts(failures: readonly WebhookCallFailure[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of failures) counts[f.cause] = (counts[f.cause] ?? 0) + 1;
  return counts;
}
